// Makes a CallbackMemoryResource of this worker's the current device resource, uses it once, and
// exits with it still current (the main thread then holds a resource whose thread is gone).
import { DeviceBuffer, getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { CallbackMemoryResource } from '@rmmjs/callback';
import { answer } from '@rmmjs/test-helpers/worker';

await answer(() => {
  const base = getCurrentDeviceResource();
  setCurrentDeviceResource(
    new CallbackMemoryResource(
      (n, s) => base.allocate(n, s),
      (p, n, s) => base.deallocate(p, n, s),
    ),
  );
  new DeviceBuffer({ size: 64 }).free();
});
