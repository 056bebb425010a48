// setStagingShape's refusals of shapes out of range, each as "class | code | message"; then a
// staged copy (in the default shape, which the refusals left alone), the streams and pinned
// allocations it made ("streams allocations"), and the refusal of any shape after it. Prints them
// as one JSON array.
import { DeviceBuffer } from '@rmmjs/core';
import { native } from '@rmmjs/core/internal';
import { expectBytes, fakeCuda, pattern, thrown } from '@rmmjs/test-helpers';

/** @param {object} shape */
const refusal = (shape) => {
  const error = thrown(() =>
    native.setStagingShape(/** @type {Parameters<typeof native.setStagingShape>[0]} */ (shape)),
  );
  return [error.constructor.name, error.code, error.message].join(' | ');
};
const out = [
  { depth: 2, stores: 4 },
  { depth: 0 },
  { chunkBytes: 1000 },
  { pieceBytes: -1 },
  { lanes: 65 },
  { smallestSpan: 2 ** 31 },
  { lanes: 1.5 },
  { depth: '3' },
  { chunk: 1 << 20 },
].map(refusal);
const size = 20 << 20;
const buffer = new DeviceBuffer({ size });
const base = fakeCuda.stats();
buffer.copyFromHost(pattern(size, 3));
const s = fakeCuda.stats();
expectBytes(buffer.toBytes(), pattern(size, 3));
buffer.free();
out.push([s.liveStreams - base.liveStreams, s.liveAllocations - base.liveAllocations].join(' '));
out.push(refusal({ depth: 3 }));
console.log(JSON.stringify(out));
