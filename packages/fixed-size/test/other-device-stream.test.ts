// A stream of another device than the resource's: refused at allocate and deallocate (its events
// record on no stream of another context), the same stream usable with a resource of its own device.
import { FixedSizeMemoryResource } from '@rmmjs/fixed-size';
import { describeStreamOfAnotherDevice } from '@rmmjs/test-helpers';

describeStreamOfAnotherDevice(
  'FixedSizeMemoryResource',
  (upstream) => new FixedSizeMemoryResource(upstream, { blockSize: 1024 * 1024, blocksToPreallocate: 4 }),
);
