// The current device resource, a pool the main thread set: its class, size and an allocation.
import { getCurrentDeviceResource } from '@rmmjs/core';
import { PoolMemoryResource } from '@rmmjs/pool';
import { answer } from '@rmmjs/test-helpers/worker';

await answer(() => {
  const mr = /** @type {PoolMemoryResource} */ (getCurrentDeviceResource());
  const ptr = mr.allocate(1000);
  mr.deallocate(ptr, 1000);
  return [mr.constructor.name, mr instanceof PoolMemoryResource, mr.poolSize(), typeof ptr];
});
