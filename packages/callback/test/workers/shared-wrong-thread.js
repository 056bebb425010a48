// The main thread's CallbackMemoryResource from its share() token (workerData): answers its class
// and the code and message of what allocating through it here threw.
import { DeviceMemoryResource } from '@rmmjs/core';
import '@rmmjs/callback'; // so that the resource comes as its class
import { answer } from '@rmmjs/test-helpers/worker';
import { workerData } from 'node:worker_threads';

await answer(() => {
  const mr = DeviceMemoryResource.fromShared(workerData);
  try {
    mr.allocate(256);
    return 'no error';
  } catch (error) {
    const { code, message } = /** @type {import('@rmmjs/core').RMMError} */ (error);
    return [mr.constructor.name, code, message];
  }
});
