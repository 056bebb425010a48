/**
 * @rmmjs/function-allocator: allocators for GPU array libraries, over rmmjs's current device
 * resource. `rmmAllocator` (a `(byteLength) => DeviceBuffer` function, RMM's CuPy allocator),
 * `rmmMemoryAllocator` (the `Memory` shape of `@rapidsai/cuda`), and C hooks for native libraries
 * in the process (CuPy, PyTorch, ONNX Runtime): `allocatorHooks`.
 *
 * @packageDocumentation
 */
export { rmmAllocator } from './rmm-allocator.js';
export { RmmMemory, rmmMemoryAllocator } from './rmm-memory.js';
export { allocatorHooks, allocatorHookStatistics } from './hooks.js';
export type { AllocatorHook, AllocatorHooks } from './hooks.js';
export type { AllocatorHookStatistics } from './native.js';
