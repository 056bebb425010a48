// What a caught OutOfMemoryError costs (not a test): `node tooling/bench/src/out-of-memory.mjs
// [--quick] [--failures N]` after `pnpm build`, in host mode (RMMJS_DISABLE_CUDA=1), on the fake
// driver (RMMJS_CUDA_LIBRARY) or a GPU. Under a 64 MiB LimitingResourceAdaptor over the current
// device resource, N failures (default 1000) of each kind, caught, with the time per failure and
// the full (mark-compact) collections they cost (perf_hooks' gc entries): a raw allocate() of more
// than is left while no buffer holds memory; a DeviceBuffer that does not fit beside 56 MiB of
// buffers still referenced, in a synchronous loop and with the event loop turning after each
// failure; and, for the other side of the trade, a drop-only loop of 4 MiB buffers that only
// runs because dropped buffers are reclaimed (time per buffer). Each figure is the best of a few runs.
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { setImmediate as turn } from 'node:timers/promises';
import * as core from '@rmmjs/core';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { parseCommandLine } from '@rmmjs/scripts/arguments.mjs';

const { values: options } = parseCommandLine('out-of-memory', {
  quick: { type: 'boolean' },
  failures: { type: 'string', value: 'N', number: { min: 1, max: 1_000_000, whole: true } },
});
const quick = options.quick === true;
const failures = options.failures ?? (quick ? 100 : 1000);
const rounds = quick ? 2 : 5;
const MiB = 1 << 20;

const mr = new LimitingResourceAdaptor(core.getCurrentDeviceResource(), 64 * MiB);
const line = (name, value, unit, note = '') =>
  console.log(`${name.padEnd(64)} ${value.toFixed(1).padStart(10)} ${unit.padEnd(10)} ${note}`);

// The full collections while fn runs, and its time in microseconds.
async function measure(fn) {
  const entries = [];
  const observer = new PerformanceObserver((list) => entries.push(...list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  await turn();
  entries.length = 0;
  const start = process.hrtime.bigint();
  await fn();
  const us = Number(process.hrtime.bigint() - start) / 1000;
  for (let i = 0; i < 3; i++) await turn(); // an entry is made on a later turn
  entries.push(...observer.takeRecords());
  observer.disconnect();
  return { us, collections: entries.filter((e) => e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR).length };
}

function expectOutOfMemory(fn) {
  try {
    fn();
  } catch (error) {
    if (error instanceof core.OutOfMemoryError) return;
    throw error;
  }
  throw new Error('out-of-memory: the allocation did not fail');
}

async function row(name, count, unit, setup, run) {
  let best;
  for (let round = 0; round < rounds; round++) {
    const teardown = setup();
    const result = await measure(run);
    teardown();
    if (best === undefined || result.us < best.us) best = result;
  }
  line(name, best.us / count, unit, `${best.collections} full collections for ${count}`);
}

const holding = () => {
  const held = Array.from({ length: 7 }, () => new core.DeviceBuffer({ size: 8 * MiB, mr }));
  return () => held.forEach((buffer) => buffer.free());
};

console.log(`caught OutOfMemoryError on ${core.cuda.isAvailable() ? core.cuda.deviceName(0) : 'host'} (64 MiB limit)`);
await row(
  'raw allocate() of more than is left, no buffer holds memory',
  failures,
  'us/failure',
  () => () => {},
  () => {
    for (let i = 0; i < failures; i++) expectOutOfMemory(() => mr.allocate(80 * MiB));
  },
);
await row('new DeviceBuffer beside 56 MiB of buffers still referenced', failures, 'us/failure', holding, () => {
  for (let i = 0; i < failures; i++) expectOutOfMemory(() => new core.DeviceBuffer({ size: 16 * MiB, mr }));
});
const turning = Math.min(failures, quick ? 20 : 100);
await row('the same, the event loop turning after each failure', turning, 'us/failure', holding, async () => {
  for (let i = 0; i < turning; i++) {
    expectOutOfMemory(() => new core.DeviceBuffer({ size: 16 * MiB, mr }));
    await turn();
  }
});
const dropped = quick ? 64 : 256;
await row(
  'drop-only loop of 4 MiB buffers (4 x the limit), reclaimed',
  dropped,
  'us/buffer',
  () => () => {},
  () => {
    for (let i = 0; i < dropped; i++) new core.DeviceBuffer({ size: 4 * MiB, mr });
  },
);
