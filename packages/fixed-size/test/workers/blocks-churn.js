// Through the current device resource: 400 buffers of up to 4 KiB filled with workerData.seed's
// values, up to 12 live, on the default, a new and the per-thread default stream in turn, each
// checked when freed. Answers how many kept their bytes.
import { DeviceBuffer, PER_THREAD_DEFAULT_STREAM, Stream } from '@rmmjs/core';
import { answer } from '@rmmjs/test-helpers/worker';
import { workerData } from 'node:worker_threads';

/** @type {{ seed: number }} */
const { seed } = workerData;

await answer(() => {
  const streams = [undefined, new Stream(), PER_THREAD_DEFAULT_STREAM];
  /** @type {[DeviceBuffer, number, Stream | undefined][]} */
  const live = [];
  let ok = 0;
  for (let i = 0; i < 400; i++) {
    const stream = streams[i % 3];
    const data = new Uint8Array(1 + ((i * 37 + seed) % 4096)).fill((seed * 31 + i) & 0xff);
    live.push([new DeviceBuffer({ data, stream }), data[0], stream]);
    if (live.length > 12) {
      const [old, value, oldStream] = /** @type {[DeviceBuffer, number, Stream | undefined]} */ (live.shift());
      if (old.toBytes(oldStream).every((b) => b === value)) ok++;
      old.free();
    }
  }
  for (const [buffer, value, stream] of live) {
    if (buffer.toBytes(stream).every((b) => b === value)) ok++;
    buffer.free();
  }
  return ok;
});
