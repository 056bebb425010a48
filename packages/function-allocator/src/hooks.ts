import { resolve } from 'node:path';
import { addon, type AllocatorHookStatistics } from './native.js';

/** One C function of librmmjs_allocators.so: its exported name and its address in this process. */
export interface AllocatorHook {
  readonly symbol: string;
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
  readonly cupy: { readonly malloc: AllocatorHook; readonly free: AllocatorHook };
  /** PyTorch's `CUDAPluggableAllocator(library, alloc.symbol, free.symbol)`. */
  readonly torch: { readonly alloc: AllocatorHook; readonly free: AllocatorHook };
  /** ONNX Runtime's CUDA external allocator (`gpu_external_alloc`, `_free`, `_empty_cache`). */
  readonly onnxruntime: {
    readonly alloc: AllocatorHook;
    readonly free: AllocatorHook;
    readonly emptyCache: AllocatorHook;
  };
}

const library = resolve(addon.startHooks());
const addresses = addon.hookAddresses();
const hook = (symbol: string, address: bigint): AllocatorHook => Object.freeze({ symbol, address });

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
