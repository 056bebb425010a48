// What it hands out: aligned, disjoint blocks, zero bytes, impossible and largest requests, and
// random allocate/free sequences whose bytes are checked (RMM's mr_ref_test_allocation.hpp).
import { expect } from 'vitest';
import { KiB, MiB, PiB } from '../basics.js';
import { core } from '../resources.js';
import { expectError, expectPlaced, onDefaultAndNewStream, randomSequence, roundTrip } from './checks.js';
import { conformanceSeed } from './seed.js';
import type { Suite } from './types.js';

const { DeviceBuffer, OutOfMemoryError, RMMError, Stream } = core;

export function allocationCases(suite: Suite): void {
  const { make, settled, test, maxAllocation } = suite;
  test(
    'alignment',
    'hands out distinct, non-overlapping, 256-byte aligned memory on the default stream and on a stream',
    () => {
      const { mr, gone } = make();
      const sizes = [1, 4, 8, 8, 255, 256, 257, 1000, KiB, 4 * KiB, 65 * KiB, MiB].filter(
        (size) => size <= maxAllocation,
      );
      onDefaultAndNewStream((stream) => {
        const ptrs = sizes.map((size) => mr.allocate(size, stream));
        expectPlaced(ptrs, sizes);
        ptrs.forEach((ptr, i) => mr.deallocate(ptr, sizes[i], stream));
      });
      settled(mr);
      gone();
    },
  );
  test('zeroBytes', 'allocates 0 bytes as 0n and deallocates (0n, 0), on the default stream and on a stream', () => {
    const { mr, gone } = make();
    onDefaultAndNewStream((stream) => {
      expect(mr.allocate(0, stream)).toBe(0n);
      mr.deallocate(0n, 0, stream);
      const empty = new DeviceBuffer({ size: 0, mr, stream });
      expect([empty.ptr, empty.size]).toEqual([0n, 0]);
      empty.free();
    });
    settled(mr);
    gone();
  });
  outOfMemoryCases(suite);
  randomSequenceCases(suite);
}

function outOfMemoryCases({ options, make, settled, test, maxAllocation, smallSize }: Suite): void {
  test(
    'outOfMemory',
    'impossible requests (1 PiB, 2^53 - 1 bytes) are OutOfMemoryError ERR_RMM_OUT_OF_MEMORY on any stream, and it stays usable',
    () => {
      const { mr, gone } = make();
      onDefaultAndNewStream((stream) => {
        for (const nbytes of [PiB, Number.MAX_SAFE_INTEGER]) {
          const error = expectError(() => mr.allocate(nbytes, stream), OutOfMemoryError, 'ERR_RMM_OUT_OF_MEMORY');
          expect(error).toBeInstanceOf(RMMError);
        }
        settled(mr);
        roundTrip(mr, smallSize, 1, stream);
      });
      settled(mr);
      gone();
    },
  );
  if (options.maxAllocation === undefined) return;
  test(
    'maxAllocation',
    `serves ${options.maxAllocation} bytes (its maximum allocation); one more is OutOfMemoryError`,
    () => {
      const { mr, gone } = make();
      const ptr = mr.allocate(maxAllocation);
      expectPlaced([ptr], [maxAllocation]);
      mr.deallocate(ptr, maxAllocation);
      expectError(() => mr.allocate(maxAllocation + 1), OutOfMemoryError, 'ERR_RMM_OUT_OF_MEMORY');
      settled(mr);
      gone();
    },
  );
}

function randomSequenceCases({ make, settled, test, maxRandomSize }: Suite): void {
  for (const [where, offset] of [
    ['the default stream', 0],
    ['a stream', 1],
  ] as const) {
    test(
      'randomSequence',
      `a random allocate/free sequence on ${where} (1 B to ${maxRandomSize} B, patterns checked) keeps every byte`,
      () => {
        const { mr, gone } = make();
        const stream = offset === 0 ? undefined : new Stream();
        randomSequence(mr, { seed: conformanceSeed + offset, stream, maxSize: maxRandomSize });
        stream?.[Symbol.dispose]();
        settled(mr);
        gone();
      },
    );
  }
}
