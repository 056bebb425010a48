// Allocates workerData.bytes from the shared pool workerData.pool and frees them; answers the
// pointer, the pool's size and the blocks this thread's cache of the pool holds then.
import { DeviceMemoryResource } from '@rmmjs/core';
import { PoolMemoryResource } from '@rmmjs/pool';
import { poolThreadCaches } from '@rmmjs/test-addon';
import { answer } from '@rmmjs/test-helpers/worker';
import { workerData } from 'node:worker_threads';

/** @type {{ pool: import('@rmmjs/core').SharedResourceToken, bytes: number }} */
const { pool, bytes } = workerData;

await answer(() => {
  const mr = /** @type {PoolMemoryResource} */ (DeviceMemoryResource.fromShared(pool));
  const ptr = mr.allocate(bytes);
  mr.deallocate(ptr, bytes);
  return [ptr, mr.poolSize(), poolThreadCaches(mr)];
});
