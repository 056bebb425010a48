import { loadPackageAddon } from '@rmmjs/core/internal';

/** What the addon (src/native/addon.cc) exports. */
export interface FunctionAllocatorAddon {
  startHooks(): string;
  hookAddresses(): {
    cupyMalloc: bigint;
    cupyFree: bigint;
    torchAlloc: bigint;
    torchFree: bigint;
    ortAlloc: bigint;
    ortFree: bigint;
    ortEmptyCache: bigint;
  };
  statistics(): AllocatorHookStatistics;
}

/** Counters of the C hooks, process-wide (every thread and every caller). */
export interface AllocatorHookStatistics {
  /** Allocations handed out and not freed. */
  liveAllocations: number;
  /** Their sizes, as requested. */
  liveBytes: number;
  /** Allocations handed out since the library loaded. */
  totalAllocations: number;
  /** Allocations that returned NULL (a size > 0). */
  failedAllocations: number;
  /** Frees of pointers the hooks did not hand out (or took back already): ignored. */
  foreignFrees: number;
}

export const addon = loadPackageAddon<FunctionAllocatorAddon>(import.meta.url, '..', '@rmmjs/function-allocator');
