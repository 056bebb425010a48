import { resolve } from 'node:path';
import { addon, type AllocatorHookStatistics } from './native.js';

/** One C function of librmmjs_allocators.so: its exported name and its address in this process. */
export interface AllocatorHook {
  /** The exported name, e.g. `rmmjs_cupy_malloc`, for libraries that look hooks up by name (PyTorch). */
  readonly symbol: string;
  /** The function's address, for libraries that take function pointers (CuPy, ONNX Runtime). */
  readonly address: bigint;
}

/**
 * The C hooks (include/rmmjs/allocators.h), for array libraries loaded into this process: each
 * allocates from the current device resource of the device it is given, from any thread.
 */
export interface AllocatorHooks {
  /** Absolute path of librmmjs_allocators.so, the file the hooks were loaded from (for dlopen). */
  readonly library: string;
  /** CuPy's `CFunctionAllocator(param, malloc, free, owner)`; `param` is the stream (0: legacy default). */
  readonly cupy: {
    /** `void* rmmjs_cupy_malloc(void* param, size_t size, int device)`. */
    readonly malloc: AllocatorHook;
    /** `void rmmjs_cupy_free(void* param, void* ptr, int device)`. */
    readonly free: AllocatorHook;
  };
  /** PyTorch's `CUDAPluggableAllocator(library, alloc.symbol, free.symbol)`. */
  readonly torch: {
    /** `void* rmmjs_torch_alloc(size_t size, int device, void* stream)`. */
    readonly alloc: AllocatorHook;
    /** `void rmmjs_torch_free(void* ptr, size_t size, int device, void* stream)`. */
    readonly free: AllocatorHook;
  };
  /** ONNX Runtime's CUDA external allocator (`gpu_external_alloc`, `_free`, `_empty_cache`). */
  readonly onnxruntime: {
    /** `void* rmmjs_ort_alloc(size_t size)`: on the calling thread's current device and the legacy default stream. */
    readonly alloc: AllocatorHook;
    /** `void rmmjs_ort_free(void* ptr)`: the hooks remember the size. */
    readonly free: AllocatorHook;
    /** `void rmmjs_ort_empty_cache(void)`: does nothing, as the hooks keep no cache. */
    readonly emptyCache: AllocatorHook;
  };
}

const library = resolve(addon.startHooks());
const addresses = addon.hookAddresses();
const hook = (symbol: string, address: bigint): AllocatorHook => Object.freeze({ symbol, address });

/**
 * The hooks of this process: `librmmjs_allocators.so`, loaded and handed `@rmmjs/core`'s API table
 * when this package is imported, so they are ready for any thread from then on.
 */
export const allocatorHooks: AllocatorHooks = Object.freeze({
  library,
  cupy: Object.freeze({
    malloc: hook('rmmjs_cupy_malloc', addresses.cupyMalloc),
    free: hook('rmmjs_cupy_free', addresses.cupyFree),
  }),
  torch: Object.freeze({
    alloc: hook('rmmjs_torch_alloc', addresses.torchAlloc),
    free: hook('rmmjs_torch_free', addresses.torchFree),
  }),
  onnxruntime: Object.freeze({
    alloc: hook('rmmjs_ort_alloc', addresses.ortAlloc),
    free: hook('rmmjs_ort_free', addresses.ortFree),
    emptyCache: hook('rmmjs_ort_empty_cache', addresses.ortEmptyCache),
  }),
});

/** The hooks' counters, process-wide: what they handed out, what failed, foreign frees ignored. */
export function allocatorHookStatistics(): AllocatorHookStatistics {
  return addon.statistics();
}
