// Ends with a buffer of a CallbackMemoryResource (the current device resource) still alive; prints
// 'done' first.
import { DeviceBuffer, getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { CallbackMemoryResource } from '@rmmjs/callback';

const base = getCurrentDeviceResource();
const mr = new CallbackMemoryResource(
  (n, s) => base.allocate(n, s),
  (p, n, s) => base.deallocate(p, n, s),
);
setCurrentDeviceResource(mr);
Object.assign(globalThis, { kept: new DeviceBuffer({ size: 100 }) });
console.log('done');
