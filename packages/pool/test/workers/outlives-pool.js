// Fills this thread's cache of the shared pool workerData.pool with three MiB blocks, drops its
// handle, says so (flags[0]) and waits (flags[1]) while the main thread disposes of the pool. Then a
// new pool with caches on: the block this thread frees to it comes back from this thread's cache
// (which dropped that of the pool that is gone). Answers [the blocks its cache held, whether it did].
import { DeviceMemoryResource, getCurrentDeviceResource } from '@rmmjs/core';
import { PoolMemoryResource } from '@rmmjs/pool';
import { poolThreadCaches } from '@rmmjs/test-addon';
import { KiB, MiB } from '@rmmjs/test-helpers/bytes';
import { answer } from '@rmmjs/test-helpers/worker';
import { workerData } from 'node:worker_threads';

/** @type {{ pool: import('@rmmjs/core').SharedResourceToken, flags: SharedArrayBuffer }} */
const { pool, flags } = workerData;

await answer(() => {
  const signals = new Int32Array(flags);
  const mr = DeviceMemoryResource.fromShared(pool);
  const blocks = [0, 1, 2].map(() => mr.allocate(MiB));
  for (const ptr of blocks) mr.deallocate(ptr, MiB);
  const held = poolThreadCaches(mr);
  mr[Symbol.dispose]();
  Atomics.store(signals, 0, 1);
  Atomics.notify(signals, 0);
  Atomics.wait(signals, 1, 0); // the pool is gone now, its cache still with this thread
  const other = new PoolMemoryResource(getCurrentDeviceResource(), { initialPoolSize: MiB });
  poolThreadCaches(other, true);
  const ptr = other.allocate(KiB);
  other.deallocate(ptr, KiB);
  const again = other.allocate(KiB);
  other.deallocate(again, KiB);
  other[Symbol.dispose]();
  return [held, again === ptr];
});
