// Once every worker has reached the barrier (workerData.flags: [arrived, go]): 300 steps of
// buffers of a few sizes (so that the caches serve most of them) from the shared pool
// workerData.pool, on the default stream and on a stream of this thread's own, each filled with its
// own pattern (from workerData.seed) and checked before it is freed. Answers [checked, bad].
import { DeviceBuffer, DeviceMemoryResource, Stream } from '@rmmjs/core';
import { answer } from '@rmmjs/test-helpers/worker';
import { workerData } from 'node:worker_threads';

/** @type {{ pool: import('@rmmjs/core').SharedResourceToken, flags: SharedArrayBuffer, seed: number }} */
const { pool, flags, seed } = workerData;
const sizes = [256, 4096, 65536, 262144];

/** @typedef {[DeviceBuffer, number, Stream | undefined]} Live a buffer, its pattern's value, its stream */

await answer(() => {
  const barrier = new Int32Array(flags);
  const mr = DeviceMemoryResource.fromShared(pool);
  Atomics.add(barrier, 0, 1);
  Atomics.wait(barrier, 1, 0);
  const stream = new Stream();
  /** @type {Live[]} */
  const live = [];
  let checked = 0;
  let bad = 0;
  const check = (/** @type {Live} */ [buffer, value, s]) => {
    const bytes = buffer.toBytes(s);
    for (let j = 0; j < bytes.length; j++)
      if (bytes[j] !== ((value + j * 7) & 0xff)) {
        bad++;
        break;
      }
    checked++;
    buffer.free();
  };
  for (let i = 0; i < 300; i++) {
    if (live.length >= 4 || (live.length > 0 && (i * 2654435761 + seed) % 5 < 2)) {
      check(/** @type {Live} */ (live.splice((i * 40503 + seed) % live.length, 1)[0]));
    } else {
      const size = /** @type {number} */ (sizes[(i * 7919 + seed * 104729) % sizes.length]);
      const value = (seed * 31 + i) & 0xff;
      const s = i % 3 === 0 ? stream : undefined;
      const data = new Uint8Array(size);
      for (let j = 0; j < size; j++) data[j] = (value + j * 7) & 0xff;
      live.push([new DeviceBuffer({ data, stream: s, mr }), value, s]);
    }
  }
  for (const entry of live) check(entry);
  stream[Symbol.dispose]();
  return [checked, bad];
});
