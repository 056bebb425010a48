// Through the current device resource: DeviceBuffers of random sizes (from workerData.seed) with
// their own patterns, up to 8 live, each checked when freed, for workerData.steps steps. Answers
// [class name, blocks checked, mismatches].
import { DeviceBuffer, getCurrentDeviceResource } from '@rmmjs/core';
import '@rmmjs/arena'; // so that the current resource comes as its class
import { KiB, MiB } from '@rmmjs/test-helpers/bytes';
import { answer } from '@rmmjs/test-helpers/worker';
import { workerData } from 'node:worker_threads';

/** @type {{ seed: number, steps: number }} */
const { seed, steps } = workerData;

/**
 * @param {number} size
 * @param {number} tag
 */
function fill(size, tag) {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (tag + i * 7) & 0xff;
  return bytes;
}

await answer(() => {
  let x = seed;
  const next = () => (x = (x * 1103515245 + 12345) >>> 0) / 4294967296;
  /** @type {{ buffer: DeviceBuffer, tag: number }[]} */
  const live = [];
  let checked = 0;
  let mismatches = 0;
  /** @param {number} i */
  const release = (i) => {
    const [{ buffer, tag }] = live.splice(i, 1);
    if (!buffer.toBytes().every((b, j) => b === ((tag + j * 7) & 0xff))) mismatches++;
    checked++;
    buffer.free();
  };
  for (let step = 0; step < steps; step++) {
    if (live.length >= 8 || (live.length > 0 && next() < 0.5)) release(Math.floor(next() * live.length));
    else {
      const size = next() < 0.05 ? MiB + Math.floor(next() * MiB) : 1 + Math.floor(next() * 64 * KiB);
      const tag = Math.floor(next() * 256);
      live.push({ buffer: new DeviceBuffer({ data: fill(size, tag) }), tag });
    }
  }
  while (live.length > 0) release(0);
  return [getCurrentDeviceResource().constructor.name, checked, mismatches];
});
