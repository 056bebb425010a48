// The upstream resources the arena suites run over (entries of the shared table), and offsets.
import { upstreams } from '@rmmjs/test-helpers';

export const upstreamCases = upstreams('the current device resource', 'CudaMemoryResource', 'ManagedMemoryResource');

/** Byte offset of ptr from base. */
export const offset = (ptr: bigint, base: bigint): number => Number(ptr - base);
