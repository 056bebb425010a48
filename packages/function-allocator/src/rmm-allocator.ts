import { DeviceBuffer, type Stream } from '@rmmjs/core';
import { streamArg, validateSize } from '@rmmjs/core/internal';

/**
 * RMM's `rmm_cupy_allocator` for JavaScript: a new `DeviceBuffer` of `nbytes` from the current
 * device resource, allocated (and later freed) on `stream` (default `DEFAULT_STREAM`). Hand it to
 * an array library that takes `(byteLength) => memory`; the buffer owns the memory until
 * `free()` (or garbage collection). A failed allocation throws `OutOfMemoryError`.
 */
export function rmmAllocator(nbytes: number, stream?: Stream): DeviceBuffer {
  validateSize(nbytes, 'nbytes');
  streamArg(stream);
  return new DeviceBuffer({ size: nbytes, stream });
}
