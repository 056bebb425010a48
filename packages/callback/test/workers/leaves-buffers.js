// Started by a child process: two buffers of a CallbackMemoryResource of this worker's own, left
// unfreed when it exits.
import { DeviceBuffer, getCurrentDeviceResource } from '@rmmjs/core';
import { CallbackMemoryResource } from '@rmmjs/callback';

const base = getCurrentDeviceResource();
const mr = new CallbackMemoryResource(
  (n, s) => base.allocate(n, s),
  (p, n, s) => base.deallocate(p, n, s),
);
Object.assign(globalThis, { kept: [new DeviceBuffer({ size: 100, mr }), new DeviceBuffer({ size: 200, mr })] });
