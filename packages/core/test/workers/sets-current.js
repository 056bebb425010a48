// Makes a new resource of core's class workerData.className the current device resource, and
// exits with it still current. Answers its class name.
import * as core from '@rmmjs/core';
import { answer } from '@rmmjs/test-helpers/worker';
import { workerData } from 'node:worker_threads';

/** @type {{ className: 'CudaMemoryResource' | 'ManagedMemoryResource' | 'PinnedHostMemoryResource' | 'CudaAsyncMemoryResource' | 'SystemMemoryResource' }} */
const { className } = workerData;

await answer(() => {
  const mr = new core[className]();
  core.setCurrentDeviceResource(mr);
  return mr.constructor.name;
});
