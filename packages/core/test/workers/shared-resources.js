// Both resources of workerData (share() tokens): what this worker sees of them, and 3000 bytes of
// the adaptor left live for the main thread. Answers [[base's class, adaptor's class, fromShared
// gives the same object, adaptor.isEqual(itself), base.isEqual(adaptor)], the pointer].
import { DeviceMemoryResource } from '@rmmjs/core';
import { answer } from '@rmmjs/test-helpers/worker';
import { workerData } from 'node:worker_threads';

/** @type {{ base: import('@rmmjs/core').SharedResourceToken, mr: import('@rmmjs/core').SharedResourceToken }} */
const tokens = workerData;

await answer(() => {
  const base = DeviceMemoryResource.fromShared(tokens.base);
  const mr = DeviceMemoryResource.fromShared(tokens.mr);
  const same = DeviceMemoryResource.fromShared(tokens.mr) === mr;
  return [[base.constructor.name, mr.constructor.name, same, mr.isEqual(mr), base.isEqual(mr)], mr.allocate(3000)];
});
