// Not part of the public API: hooks for the tests and the benchmarks. Import them by path
// ('@rmmjs/arena/dist/testing.js' is not exported: use the file).
import type { DeviceMemoryResource } from '@rmmjs/core';
import { resourceHandle } from '@rmmjs/core/internal';
import { addon, type ArenaSummary, type WorkloadResult } from './addon.js';

export type { ArenaSummary, WorkloadResult };

/** Where the memory of an ArenaMemoryResource is now. */
export function arenaSummary(mr: DeviceMemoryResource): ArenaSummary {
  return addon.summary(resourceHandle(mr, 'mr'));
}

export interface NativeThreadsWorkloadOptions {
  threads: number;
  /** Steps per thread: allocate (coin flip, or when nothing is live) or free a random live block. */
  iterations: number;
  minBytes: number;
  maxBytes: number;
  /** Live blocks per thread at most (1: allocate+free pairs). */
  maxLive: number;
  seed?: number;
  /** Fill every block with its own pattern and compare it when freed. */
  check?: boolean;
}

/** Native threads (std::thread, no JavaScript) allocating and freeing through mr at once. */
export function nativeThreadsWorkload(mr: DeviceMemoryResource, options: NativeThreadsWorkloadOptions): WorkloadResult {
  const { threads, iterations, minBytes, maxBytes, maxLive, seed = 1, check = false } = options;
  return addon.nativeThreadsWorkload(resourceHandle(mr, 'mr'), threads, iterations, minBytes, maxBytes, maxLive, seed, check);
}
