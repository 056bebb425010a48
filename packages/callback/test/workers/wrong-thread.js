// The current device resource, a CallbackMemoryResource of the main thread, used from here (with
// @rmmjs/callback imported when workerData.imports says so). Answers its class and, for allocate,
// deallocate and a DeviceBuffer, [is RMMError, name, code, message] of what each threw.
import { DeviceBuffer, RMMError, getCurrentDeviceResource } from '@rmmjs/core';
import { answer } from '@rmmjs/test-helpers/worker';
import { workerData } from 'node:worker_threads';

/** @type {{ imports: boolean }} */
const { imports } = workerData;
if (imports) await import('@rmmjs/callback');

/** @param {() => unknown} fn */
function failure(fn) {
  try {
    fn();
    return 'no error';
  } catch (error) {
    const { name, code, message } = /** @type {RMMError} */ (error);
    return [error instanceof RMMError, name, code, message];
  }
}

await answer(() => {
  const mr = getCurrentDeviceResource();
  return [
    mr.constructor.name,
    failure(() => mr.allocate(256)),
    failure(() => mr.deallocate(4096n, 256)),
    failure(() => new DeviceBuffer({ size: 256 })),
  ];
});
