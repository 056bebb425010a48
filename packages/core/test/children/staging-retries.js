// The pinned staging of large copies (with 2 lanes) failing while it is first made: for each of its
// driver calls in turn, a copy with that call failing once, checked by a copy back that is not
// staged either; then a copy that makes it. Prints, after each, the streams, events and pinned
// allocations it left ("streams events allocations", comma-separated).
import { DeviceBuffer } from '@rmmjs/core';
import { native } from '@rmmjs/core/internal';
import { expectBytes, fakeCuda, pattern } from '@rmmjs/test-helpers';

native.setStagingShape({ lanes: 2 });
const size = 20 << 20;
const buffer = new DeviceBuffer({ size });
const base = fakeCuda.stats();
const left = () => {
  const now = fakeCuda.stats();
  return [
    now.liveStreams - base.liveStreams,
    now.liveEvents - base.liveEvents,
    now.liveAllocations - base.liveAllocations,
  ].join(' ');
};
const out = [];
for (const [symbol, nth] of /** @type {const} */ ([
  ['cuMemHostAlloc', 3],
  ['cuStreamCreateWithPriority', 1],
  ['cuEventCreate', 2],
])) {
  fakeCuda.failNext(symbol, nth, 'CUDA_ERROR_OUT_OF_MEMORY');
  buffer.copyFromHost(pattern(size, nth));
  fakeCuda.clearFaults();
  fakeCuda.failAlways(symbol, 'CUDA_ERROR_OUT_OF_MEMORY'); // the check's own copy is not staged either
  expectBytes(buffer.toBytes(), pattern(size, nth));
  fakeCuda.clearFaults();
  out.push(left());
}
buffer.copyFromHost(pattern(size, 9));
out.push(left());
expectBytes(buffer.toBytes(), pattern(size, 9));
buffer.free();
console.log(out.join(','));
