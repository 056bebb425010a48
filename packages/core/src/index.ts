/**
 * @rmmjs/core: the RAPIDS Memory Manager's core for Node.js. Importing it never touches the
 * CUDA driver; the driver is loaded on first need, and without one (host mode) everything
 * that does not need a GPU works over host memory.
 *
 * @packageDocumentation
 */
export { RMMError, OutOfMemoryError, CudaError } from './errors.js';
export type { RMMErrorOptions, CudaErrorOptions } from './errors.js';
export { parseBytes } from './parse-bytes.js';
export { cuda } from './cuda.js';
export { Stream, DEFAULT_STREAM, LEGACY_DEFAULT_STREAM, PER_THREAD_DEFAULT_STREAM } from './stream.js';
export type { StreamOptions } from './stream.js';
export { CudaStreamPool } from './cuda-stream-pool.js';
export type { CudaStreamPoolOptions } from './cuda-stream-pool.js';
export { DeviceMemoryResource } from './device-memory-resource.js';
export { UpstreamResourceAdaptor } from './upstream-resource-adaptor.js';
export { CudaMemoryResource } from './resources/cuda-memory-resource.js';
export { ManagedMemoryResource } from './resources/managed-memory-resource.js';
export { SystemMemoryResource } from './resources/system-memory-resource.js';
export { SamHeadroomMemoryResource } from './resources/sam-headroom-memory-resource.js';
export { PinnedHostMemoryResource } from './resources/pinned-host-memory-resource.js';
export { CudaAsyncMemoryResource } from './resources/cuda-async-memory-resource.js';
export type { CudaAsyncMemoryResourceOptions } from './resources/cuda-async-memory-resource.js';
export { CudaAsyncViewMemoryResource } from './resources/cuda-async-view-memory-resource.js';
export { DeviceBuffer } from './device-buffer.js';
export type { SharedResourceToken, TransferredBufferToken } from './tokens.js';
export type { DeviceBufferOptions, CudaArrayInterface, CudaArrayLike, HostBytes } from './device-buffer.js';
export {
  availableDeviceMemory,
  getCurrentDeviceResource,
  getCurrentDeviceResourceType,
  setCurrentDeviceResource,
  getPerDeviceResource,
  getPerDeviceResourceType,
  setPerDeviceResource,
  isInitialized,
  registerReinitializeHook,
  unregisterReinitializeHook,
} from './registry.js';
export type { ResourceType } from './registry.js';
