// The random sequence through the current device resource, on workerData.streamKind ('stream':
// one of its own, or 'perThread'), once the main thread says go; answers what the main thread checks.
import { workerData } from 'node:worker_threads';
import { equalBytes, random } from '../../bytes.js';
import { answer } from '../../worker.js';
import { GO, READY, fillPattern, randomSize, waitFor } from '../common.js';
import { core } from './imports.js';

const { seed, steps, maxSize, streamKind } = workerData;
const slots = new BigInt64Array(workerData.slots);

await answer(() => {
  const stream = streamKind === 'stream' ? new core.Stream() : core.PER_THREAD_DEFAULT_STREAM;
  const mr = core.getCurrentDeviceResource();
  const next = random(seed);
  /** @type {{ buffer: import('@rmmjs/core').DeviceBuffer, data: Uint8Array }[]} */
  const live = [];
  const seen = {
    className: mr.constructor.name,
    sameResource: true,
    allocations: 0,
    frees: 0,
    misaligned: 0,
    changed: 0,
  };
  /** @param {number} index */
  const release = (index) => {
    const [{ buffer, data }] = live.splice(index, 1);
    if (!equalBytes(buffer.toBytes(), data)) seen.changed++;
    buffer.free();
    seen.frees++;
  };
  Atomics.add(slots, READY, 1n);
  waitFor(slots, GO, (go) => go === 1n);
  for (let step = 0; step < steps; step++) {
    if (live.length >= 8 || (live.length > 0 && next() < 0.47)) {
      release(Math.floor(next() * live.length));
      continue;
    }
    const data = fillPattern(randomSize(next, maxSize), Math.floor(next() * 2 ** 32));
    const buffer = new core.DeviceBuffer({ data, stream });
    seen.allocations++;
    if (buffer.ptr % 256n !== 0n) seen.misaligned++;
    if (buffer.mr !== mr) seen.sameResource = false;
    live.push({ buffer, data });
  }
  while (live.length > 0) release(0);
  if (streamKind === 'stream') stream[Symbol.dispose]();
  return seen;
});
