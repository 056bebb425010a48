// Stream ordering: memory freed on one stream reused on another, allocated on one and freed on
// another, on a stream since destroyed; the default, legacy and per-thread default streams.
import { expectBytes } from '../basics.js';
import { core } from '../resources.js';
import { expectPlaced, roundTrip } from './checks.js';
import { fillPattern } from './common.js';
import type { Suite } from './types.js';

const { DEFAULT_STREAM, DeviceBuffer, LEGACY_DEFAULT_STREAM, PER_THREAD_DEFAULT_STREAM, Stream } = core;

export function streamCases({ make, settled, test, smallSize }: Suite): void {
  test(
    'streams',
    'memory freed on one stream is reused on another; what each stream wrote is intact after synchronisation',
    () => {
      const { mr, gone } = make();
      const [a, b] = [new Stream(), new Stream()];
      const kept = new DeviceBuffer({ data: fillPattern(smallSize, 1), mr, stream: a });
      new DeviceBuffer({ data: fillPattern(smallSize, 2), mr, stream: a }).free();
      const reused = new DeviceBuffer({ data: fillPattern(smallSize, 3), mr, stream: b });
      a.synchronize();
      b.synchronize();
      expectBytes(kept.toBytes(), fillPattern(smallSize, 1));
      expectBytes(reused.toBytes(), fillPattern(smallSize, 3));
      // Allocated on one stream, freed on another once the first is done (RMM's different-stream tests).
      const ptr = mr.allocate(smallSize, a);
      a.synchronize();
      mr.deallocate(ptr, smallSize, b);
      b.synchronize();
      kept.free();
      reused.free();
      // Memory freed on a stream that is then destroyed is still there for others.
      const c = new Stream();
      new DeviceBuffer({ data: fillPattern(smallSize, 4), mr, stream: c }).free();
      c[Symbol.dispose]();
      roundTrip(mr, smallSize, 5, a);
      roundTrip(mr, smallSize, 6);
      a[Symbol.dispose]();
      b[Symbol.dispose]();
      settled(mr);
      gone();
    },
  );

  test(
    'streams',
    'allocates, keeps bytes and frees on the default, legacy default and per-thread default streams',
    () => {
      const { mr, gone } = make();
      for (const [i, stream] of [DEFAULT_STREAM, LEGACY_DEFAULT_STREAM, PER_THREAD_DEFAULT_STREAM].entries()) {
        const ptr = mr.allocate(1000, stream);
        expectPlaced([ptr], [1000]);
        mr.deallocate(ptr, 1000, stream);
        roundTrip(mr, smallSize, 10 + i, stream);
      }
      settled(mr);
      gone();
    },
  );
}
