import { loadAdaptorAddon, type ResourceHandle } from '@rmmjs/core/internal';

export interface WorkloadResult {
  operations: number;
  seconds: number;
  mismatches: number;
  errors: string[];
}

export interface ArenaSummary {
  arenaSize: number;
  threadArenas: number;
  streamArenas: number;
  globalSuperblocks: number;
  globalFreeBytes: number;
  globalLargestFreeBlock: number;
}

export interface ArenaAddon {
  summary(mr: ResourceHandle): ArenaSummary;
  create(upstream: ResourceHandle, arenaSize: number, dumpLogOnFailure: boolean): ResourceHandle;
  nativeThreadsWorkload(
    mr: ResourceHandle,
    threads: number,
    iterations: number,
    minBytes: number,
    maxBytes: number,
    maxLive: number,
    seed: number,
    check: boolean,
  ): WorkloadResult;
}

export const addon = loadAdaptorAddon<ArenaAddon>(import.meta.url, '../build/Release/rmmjs_arena.node', '@rmmjs/arena');
