// The current device resource, a pool over a callback resource of the main thread: what growing it
// does here, where the callback cannot run (directly, through a second pool, for a new pool's
// initial size). Answers each failure as [class, is OutOfMemoryError, code, message], and the pool's size.
import { OutOfMemoryError, getCurrentDeviceResource } from '@rmmjs/core';
import { PoolMemoryResource } from '@rmmjs/pool';
import { MiB } from '@rmmjs/test-helpers/bytes';
import { answer } from '@rmmjs/test-helpers/worker';

/** @param {() => unknown} fn */
function failure(fn) {
  try {
    fn();
    return 'no error';
  } catch (error) {
    const { code, message } = /** @type {{ code: string, message: string }} */ (error);
    return [/** @type {object} */ (error).constructor.name, error instanceof OutOfMemoryError, code, message];
  }
}

await answer(() => {
  const mr = /** @type {PoolMemoryResource} */ (getCurrentDeviceResource());
  const ptr = mr.allocate(1000); // from the pool's free memory: no callback
  mr.deallocate(ptr, 1000);
  const outer = new PoolMemoryResource(mr, { initialPoolSize: 0 });
  return [
    failure(() => mr.allocate(2 * MiB)), // growth calls the upstream's callback
    failure(() => outer.allocate(2 * MiB)), // through two pools
    failure(() => new PoolMemoryResource(mr.upstreamMr, { initialPoolSize: MiB })),
    mr.poolSize(),
  ];
});
