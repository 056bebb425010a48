import { type DeviceMemoryResource, UpstreamResourceAdaptor } from '@rmmjs/core';
import type { CoreApi, MakeErrorFn } from '@rmmjs/core/addon';

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

export interface WorkloadResult {
  operations: number;
  /** From the first thread's start to the last one's end. */
  seconds: number;
  /** Blocks whose pattern changed while they were live (with `check`). */
  mismatches: number;
  /** One message per thread that stopped on a failure. */
  errors: string[];
}

/** Native threads (std::thread, no JavaScript) allocating and freeing through `mr` at once. */
export function nativeThreadsWorkload(mr: DeviceMemoryResource, options: NativeThreadsWorkloadOptions): WorkloadResult;

/** [status, message] of an allocate+free of `nbytes` on a new native thread (the caller waits). */
export function allocateOnNativeThread(mr: DeviceMemoryResource, nbytes: number): [number, string];
/** The same on a thread of libuv's pool. */
export function allocateOnThreadPool(mr: DeviceMemoryResource, nbytes: number): Promise<[number, string]>;
/**
 * The same on a new native thread, which then lets go of `mr` and exits. In its exit, the first shared
 * lock taken by the thread_local destructors that were there before (a resource's exit hook) waits
 * while `during()` runs on the calling thread (needs holdAtExitLibrary preloaded). Returns [whether
 * the thread was held (false: it took no such lock within 10 s), status, message, what during returned].
 */
export function exitHeld<T>(mr: DeviceMemoryResource, nbytes: number, during: () => T): [boolean, number, string, T];
/** The library a child process preloads (LD_PRELOAD) for exitHeld: holds an exiting thread at a shared lock. */
export const holdAtExitLibrary: string;

/** ns per allocate+deallocate pair through the C ABI, in a C++ loop. */
export function abiPairNs(mr: DeviceMemoryResource, nbytes: number, iterations: number): number;
/** ns per operation of a random workload (sizes[i] > 0 allocates; else frees live block frees[i]). */
export function abiRandomNs(mr: DeviceMemoryResource, sizes: Float64Array, frees: Float64Array): number;
/**
 * Operations per second (a pair counts as two) of `threads` native threads doing allocate+deallocate
 * pairs of `nbytes` on the default stream through the C ABI on `mr` at once, for `seconds`.
 */
export function abiThreadsOpsPerSecond(
  mr: DeviceMemoryResource,
  threads: number,
  nbytes: number,
  seconds: number,
): number;
/** ns per cuMemAlloc + cuMemFree pair on device 0 (CUDA only). */
export function driverPairNs(nbytes: number, iterations: number): number;
/** ns per cuMemAllocFromPoolAsync + cuMemFreeAsync pair on the legacy stream (CUDA only). */
export function driverPoolPairNs(pool: bigint, nbytes: number, iterations: number): number;

/** This process's core API table with another major, minor and size (what an older or newer core would hand over). */
export function forgeCoreApi(major: number, minor: number, size: number): CoreApi;
/** The addon's init (RMMJS_ADDON's): accepts or refuses a core API table. */
export function initAddon(coreApi: CoreApi, makeError: MakeErrorFn, holdJsException: (error: unknown) => string): void;

/** A plain-C stand-in for the array libraries that take @rmmjs/function-allocator's C hooks. */
export interface AllocatorHookConsumer {
  /** dlopen(path) and dlsym of each hook, as PyTorch does: symbol -> address. */
  open(path: string): Record<string, bigint>;
  /** rmmjs_allocators_last_error() on this thread (after open()). */
  lastError(): string;
  /** CuPy's CFunctionAllocator calls, through the function at `address`. Pointers are bigints (0n: NULL). */
  cupyMalloc(address: bigint, param: bigint, size: number, device: number): bigint;
  cupyFree(address: bigint, param: bigint, ptr: bigint, device: number): void;
  /** PyTorch's CUDAPluggableAllocator calls. */
  torchAlloc(address: bigint, size: number, device: number, stream: bigint): bigint;
  torchFree(address: bigint, ptr: bigint, size: number, device: number, stream: bigint): void;
  /** ONNX Runtime's external allocator calls. */
  ortAlloc(address: bigint, size: number): bigint;
  ortFree(address: bigint, ptr: bigint): void;
  ortEmptyCache(address: bigint): void;
  /**
   * `threads` native threads each run `iterations` allocate/free steps (sizes `size` + 0..6 * 256,
   * up to 8 blocks live per thread) through one library's pair of hooks; returns the allocations
   * that failed.
   */
  onThreads(
    kind: 'cupy' | 'torch' | 'ort',
    allocAddress: bigint,
    freeAddress: bigint,
    threads: number,
    iterations: number,
    size: number,
    device: number,
    stream: bigint,
  ): number;
}
export const allocatorHookConsumer: AllocatorHookConsumer;

/** The slots a lookup reads in core's ShardedPointerTable holding exactly `pointers`: mean and most. */
/** The library a child process preloads (LD_PRELOAD) for hostOomStep: an operator new that fails when told to. */
export const failNewLibrary: string;
/** What one sequence of calls on mr did while the k-th operator new of the calling thread failed. */
export interface HostOomStep {
  /** The k-th operator new came (false: the sequence makes fewer than k + 1). */
  fired: boolean;
  failedAllocations: number;
  failedFrees: number;
  /** Frees that failed and then failed again once nothing failed any more (must be 0). */
  refreesFailed: number;
  /** Pairs of blocks live at once that overlap (must be 0). */
  overlaps: number;
  /** Calls that failed with another status than out of memory, as "allocate 5" (must be empty). */
  unexpected: string[];
}
export function hostOomStep(mr: DeviceMemoryResource, k: number): HostOomStep;
export function pointerTableProbes(pointers: BigUint64Array): {
  mean: number;
  longest: number;
  ownLines: boolean;
};

/**
 * Core's BestFitIndex against a std::set of (size, start) under `steps` seeded random operations
 * (insert, remove, rekey, moves between two indexes, best fit, first) over keys of one kind.
 */
export function bestFitIndexCheck(options: {
  seed: number;
  steps: number;
  sizes: 'steps' | 'any' | 'equal' | 'edges';
}): { operations: number; mismatches: number; first: string; records: number };

/**
 * Core's SpareList of capacity 4 through one fixed sequence of takes and recycles, then its
 * destruction: per step, the records made so far, those alive and those the list keeps; `takenBack`
 * names the records a second round of takes returned (`r0`..`r5`, in the order the first made them).
 */
export function spareListCheck(): {
  steps: string[];
  made: number[];
  live: number[];
  kept: number[];
  takenBack: string;
};

/**
 * Core's BiasedLock over a plain counter: `iterations` sections on this thread alone, then as many
 * on this thread and on each of `threads` native threads at once.
 */
export function biasedLockRun(options: { threads: number; iterations: number }): {
  total: number;
  expected: number;
  /** Sections that found another thread inside. */
  overlaps: number;
  /** Still biased after this thread's sections alone. */
  biasedAlone: boolean;
  biasedAfter: boolean;
  /** Whether the process barrier (Linux membarrier) that the bias needs is available. */
  barrier: boolean;
};

/**
 * ns per pair of Node-API calls shaped like core's allocate(mr, nbytes) and deallocate(mr, ptr,
 * nbytes) that do nothing else: the floor under any allocate+free pair made from JavaScript.
 */
export function napiFloorPairNs(nbytes: number, iterations: number): number;

/**
 * The blocks waiting in the threads' caches of a PoolMemoryResource (@rmmjs/pool); with `enable`,
 * the caches are turned on first (they come on by themselves once threads meet on the pool's lock).
 */
export function poolThreadCaches(pool: DeviceMemoryResource, enable?: boolean): number;

/** cuStreamQuery of `handle` on this thread: 0 when its work has finished, 600 (not ready) while it runs. */
export function streamQuery(handle: bigint): number;

/** Samples this thread's instruction pointer every `intervalUs` microseconds (Linux x86-64). */
export function pcSamplerStart(intervalUs: number): void;

/**
 * Stops sampling; writes the process's mappings (`map <file size> <maps line>`) and the samples
 * (`pc <hex>`) to `path`; returns how many samples there are.
 */
export function pcSamplerStop(path: string): number;

/**
 * The suites' meter: an adaptor over `upstream` that forwards every call and counts the bytes
 * outstanding, each allocation rounded up to 256 (as LimitingResourceAdaptor counts them).
 */
export class CountingResourceAdaptor extends UpstreamResourceAdaptor {
  constructor(upstream: DeviceMemoryResource);
  /** Bytes handed out and not yet freed, each allocation rounded up to 256. */
  getAllocatedBytes(): number;
}
