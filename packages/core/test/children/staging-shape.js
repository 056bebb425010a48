// A copy of 20 MiB + 12345 B (3 chunks of 1 MiB, each reused: a short last span and piece) both
// ways through the pinned staging of the shape its first argument gives (JSON for
// setStagingShape), checked into a new array and into one already in place. Prints the streams,
// events and pinned allocations the staging made and the DMAs (cuMemcpyAsync) of the copy.
import { DeviceBuffer } from '@rmmjs/core';
import { native } from '@rmmjs/core/internal';
import { expectBytes, fakeCuda, pattern } from '@rmmjs/test-helpers';

native.setStagingShape(JSON.parse(/** @type {string} */ (process.argv[2])));
const size = (20 << 20) + 12345;
const buffer = new DeviceBuffer({ size });
const base = fakeCuda.stats();
buffer.copyFromHost(pattern(size, 5));
const s = fakeCuda.stats();
const memcpys = (s.calls.cuMemcpyAsync ?? 0) - (base.calls.cuMemcpyAsync ?? 0);
expectBytes(buffer.toBytes(), pattern(size, 5)); // into a new (untouched) array
const target = new Uint8Array(size).fill(7);
expectBytes(buffer.copyToHost(target), pattern(size, 5)); // into one already in place
buffer.free();
console.log(
  [
    s.liveStreams - base.liveStreams,
    s.liveEvents - base.liveEvents,
    s.liveAllocations - base.liveAllocations,
    memcpys,
  ].join(' '),
);
