/**
 * `rmm.mr.*`: every memory resource and adaptor, and the per-device resource registry.
 *
 * @module
 */
export {
  DeviceMemoryResource,
  UpstreamResourceAdaptor,
  availableDeviceMemory,
  getCurrentDeviceResource,
  getCurrentDeviceResourceType,
  setCurrentDeviceResource,
  getPerDeviceResource,
  getPerDeviceResourceType,
  setPerDeviceResource,
  isInitialized,
} from '@rmmjs/core';
export { enableLogging, disableLogging, getLogFilenames } from '@rmmjs/logging';
// Every resource of the packages this one depends on, from their registrations (made by `build`).
export * from './generated/mr.js';
