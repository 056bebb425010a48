/**
 * `rmm.mr.*`: every memory resource and adaptor, and the per-device resource registry.
 *
 * @module
 */
export {
  DeviceMemoryResource,
  UpstreamResourceAdaptor,
  CudaMemoryResource,
  ManagedMemoryResource,
  SystemMemoryResource,
  SamHeadroomMemoryResource,
  PinnedHostMemoryResource,
  CudaAsyncMemoryResource,
  CudaAsyncViewMemoryResource,
  availableDeviceMemory,
  getCurrentDeviceResource,
  getCurrentDeviceResourceType,
  setCurrentDeviceResource,
  getPerDeviceResource,
  getPerDeviceResourceType,
  setPerDeviceResource,
  isInitialized,
} from '@rmmjs/core';
export type { CudaAsyncMemoryResourceOptions } from '@rmmjs/core';
export * from '@rmmjs/arena';
export * from '@rmmjs/binning';
export * from '@rmmjs/callback';
export * from '@rmmjs/failure-callback';
export * from '@rmmjs/fixed-size';
export * from '@rmmjs/limiting';
export * from '@rmmjs/pool';
export * from '@rmmjs/prefetch';
export * from '@rmmjs/tracking';
export {
  LoggingResourceAdaptor,
  enableLogging,
  disableLogging,
  getLogFilenames,
  type LoggingResourceAdaptorOptions,
} from '@rmmjs/logging';
export { StatisticsResourceAdaptor } from '@rmmjs/statistics';
