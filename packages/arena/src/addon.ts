import { loadPackageAddon, type ResourceHandle } from '@rmmjs/core/internal';

/** Where the memory of an `ArenaMemoryResource` is now (see `arenaSummary`). */
export interface ArenaSummary {
  /** Bytes of the global arena taken from the upstream. */
  arenaSize: number;
  /** Per-thread arenas (the default streams' allocations), of threads that have not exited. */
  threadArenas: number;
  /** Per-stream arenas (allocations on other streams). */
  streamArenas: number;
  /** Superblocks the global arena holds (not lent to an arena). */
  globalSuperblocks: number;
  /** Free bytes in those superblocks. */
  globalFreeBytes: number;
  /** The largest free block among them. */
  globalLargestFreeBlock: number;
}

export interface ArenaAddon {
  create(upstream: ResourceHandle, arenaSize: number | undefined, dumpLogOnFailure: boolean): ResourceHandle;
  summary(mr: ResourceHandle): ArenaSummary;
}

export const addon = loadPackageAddon<ArenaAddon>(import.meta.url, '..', '@rmmjs/arena');
