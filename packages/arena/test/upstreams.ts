// The upstream resources the arena suites run over (entries of the shared table), offsets, and
// the driver calls made on the fake driver.
import { fakeCuda, onFake, upstreams } from '@rmmjs/test-helpers';
import { expect } from 'vitest';

export const upstreamCases = upstreams('the current device resource', 'CudaMemoryResource', 'ManagedMemoryResource');

/** Byte offset of ptr from base. */
export const offset = (ptr: bigint, base: bigint): number => Number(ptr - base);

/** The stream-order calls the driver got while fn ran (all zero off the fake driver). */
export function callsDuring(
  fn: () => void,
  symbols = ['cuStreamSynchronize', 'cuEventRecord', 'cuEventSynchronize', 'cuStreamWaitEvent'],
): Record<string, number> {
  const before = onFake() ? fakeCuda.stats().calls : {};
  fn();
  const after = onFake() ? fakeCuda.stats().calls : {};
  return Object.fromEntries(symbols.map((symbol) => [symbol, (after[symbol] ?? 0) - (before[symbol] ?? 0)]));
}

/** Checks the calls on the fake driver (no driver elsewhere). */
export const expectCalls = (actual: Record<string, number>, expected: Record<string, number>) => {
  if (onFake()) expect(actual).toEqual(expected);
};
