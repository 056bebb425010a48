// A stream of another device than the arena's: refused at allocate and deallocate (its events record
// on no stream of another context), small and large blocks alike; the same stream usable with an
// arena of its own device.
import { ArenaMemoryResource } from '@rmmjs/arena';
import { MiB, describeStreamOfAnotherDevice } from '@rmmjs/test-helpers';

describeStreamOfAnotherDevice(
  'ArenaMemoryResource',
  (upstream) => new ArenaMemoryResource(upstream, { arenaSize: 8 * MiB }),
  {
    sizes: [1000, 64 * 1024, 3 * MiB],
  },
);
