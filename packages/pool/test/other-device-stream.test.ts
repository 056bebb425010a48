// A stream of another device than the pool's: refused at allocate and deallocate (its events record
// on no stream of another context), the same stream usable with a pool of its own device.
import { PoolMemoryResource } from '@rmmjs/pool';
import { MiB, describeStreamOfAnotherDevice } from '@rmmjs/test-helpers';

describeStreamOfAnotherDevice(
  'PoolMemoryResource',
  (upstream) => new PoolMemoryResource(upstream, { initialPoolSize: 4 * MiB }),
  {
    sizes: [1000, 64 * 1024, 3 * MiB],
  },
);
