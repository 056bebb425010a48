// Through the current BinningMemoryResource: 400 buffers of bin and upstream sizes filled with
// workerData.seed's values, up to 16 live, half on a stream of the worker's own, each checked when
// freed; worker 4 adds a bin every 40 steps. Answers how many kept their bytes.
import { DeviceBuffer, Stream, getCurrentDeviceResource } from '@rmmjs/core';
import { BinningMemoryResource } from '@rmmjs/binning'; // so that the current resource comes as its class
import { FixedSizeMemoryResource } from '@rmmjs/fixed-size';
import { KiB } from '@rmmjs/test-helpers/bytes';
import { answer } from '@rmmjs/test-helpers/worker';
import { workerData } from 'node:worker_threads';

/** @type {{ seed: number }} */
const { seed } = workerData;

await answer(() => {
  const mr = /** @type {BinningMemoryResource} */ (getCurrentDeviceResource());
  const stream = new Stream();
  /** @type {[DeviceBuffer, number, Stream | undefined][]} */
  const live = [];
  let ok = 0;
  for (let i = 0; i < 400; i++) {
    if (seed === 4 && i % 40 === 0) {
      const size = 24 * KiB + (i / 40) * 4 * KiB;
      mr.addBin(size, new FixedSizeMemoryResource(mr.upstreamMr, { blockSize: size, blocksToPreallocate: 2 }));
    }
    const size = i % 10 === 9 ? 100000 + i : 1 + ((i * 7919 + seed * 104729) % 20000);
    const data = new Uint8Array(size).fill((seed * 31 + i) & 0xff);
    const onStream = i % 2 === 0 ? stream : undefined;
    live.push([new DeviceBuffer({ data, stream: onStream }), data[0], onStream]);
    if (live.length > 16) {
      const [old, value, oldStream] = /** @type {[DeviceBuffer, number, Stream | undefined]} */ (live.shift());
      if (old.toBytes(oldStream).every((b) => b === value)) ok++;
      old.free();
    }
  }
  for (const [buffer, value, onStream] of live) {
    if (buffer.toBytes(onStream).every((b) => b === value)) ok++;
    buffer.free();
  }
  return ok;
});
