// The soak: `node tooling/scripts/soak.mjs --minutes 5` (see tooling/stress/README.md). Rounds of a
// random buffer workload (allocate, free, resize, device and host copies, asynchronous copies, every
// buffer's bytes checked before it is freed) on the main thread and in worker threads, over pool,
// arena, binning and (with CUDA) CudaAsync stacks in turn, each stack made the current device
// resource for its round and closed after it. It checks that no bytes are corrupted, that each
// stack stays within its maximum (its meter, and the device's used memory as the driver reports
// it) and gives everything back, and that the host's RSS stays flat; it prints one summary line
// and exits 1 on any problem. Runs on a GPU, on the fake driver and in host mode.
//   --minutes M | --seconds S   how long (default 1 minute)
//   --workers N                 worker threads besides the main thread (default 4)
//   --round-seconds S           one stack's round (default 10, at most a fifth of the run)
//   --pool-size BYTES           the maximum of every stack (default: 1/16 of the device, at most
//                               4 GiB; 64 MiB in host mode)
//   --max-size BYTES            the largest buffer (default: 1/32 of the pool size, at most 32 MiB)
//   --seed N                    the random sequences (default: a new one, printed)
//   --json FILE                 also write the figures as JSON
import { writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { availableDeviceMemory, cuda, setCurrentDeviceResource } from '@rmmjs/core';
import { buildStack, expectedCounters } from '@rmmjs/stress/stacks';
import { startWorker } from '@rmmjs/stress/threads';
import { Workload } from '@rmmjs/stress/workload';
import { parseCommandLine } from './arguments.mjs';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

const number = (value, rule = { min: 0 }) => ({ type: 'string', value, number: rule });
const { values: options } = parseCommandLine('soak', {
  minutes: number('M'),
  seconds: number('S'),
  workers: number('N', { min: 0, whole: true }),
  'round-seconds': number('S'),
  'pool-size': number('BYTES', { min: 0, whole: true }),
  'max-size': number('BYTES', { min: 0, whole: true }),
  seed: number('N', { min: 0, whole: true }),
  json: { type: 'string', value: 'FILE' },
});
const withCuda = cuda.isAvailable();
const seconds = options.seconds ?? (options.minutes ?? 1) * 60;
const workers = options.workers ?? 4;
const roundSeconds = Math.min(options['round-seconds'] ?? 10, seconds / 5);
const [, deviceTotal] = withCuda ? availableDeviceMemory() : [0, 0];
const poolSize =
  options['pool-size'] ?? (withCuda ? Math.min(4 * GiB, Math.floor(deviceTotal / 16 / MiB) * MiB) : 64 * MiB);
const maxSize = options['max-size'] ?? Math.min(32 * MiB, Math.floor(poolSize / 32));
const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
const base = withCuda ? 'Cuda' : 'Current';
const specs = [
  `Statistics(Pool(${base}))`,
  `Tracking(Arena(${base}))`,
  `Limiting(Binning(Pool(${base})))`,
  ...(withCuda ? ['Statistics(Limiting(CudaAsync))'] : []),
];
const workloadOptions = { streams: 2, maxLive: 16, maxSize };

const problems = [];
const problem = (text) => {
  if (problems.length < 20) console.error(`soak: ${text}`);
  problems.push(text);
};
const totals = { rounds: 0, steps: 0, allocations: 0, checks: 0, checkedBytes: 0, outOfMemory: 0, terminated: 0 };
const add = (counts) => {
  for (const key of ['steps', 'allocations', 'checks', 'checkedBytes', 'outOfMemory']) totals[key] += counts[key];
};

// Device memory in use as the driver reports it (not in host mode, where it is the host's).
const deviceUsed = () => {
  const [free, total] = availableDeviceMemory();
  return total - free;
};
const usedAtStart = withCuda ? deviceUsed() : 0;
let peakMeter = 0;
let peakDevice = 0;
// What the driver may count beyond the stack's own maximum: pools of memory pools grow in
// granules, copies stage through pinned memory, other processes share the device.
const deviceSlack = Math.max(256 * MiB, poolSize / 4);

function checkMaxima(stack) {
  const held = stack.meter.getAllocatedBytes();
  peakMeter = Math.max(peakMeter, held);
  if (held > poolSize) problem(`${stack.spec} holds ${held} bytes, over its maximum of ${poolSize}`);
  if (!withCuda) return;
  const used = deviceUsed() - usedAtStart;
  peakDevice = Math.max(peakDevice, used);
  if (used > poolSize + deviceSlack) {
    problem(`the device has ${used} more bytes in use than at the start, over ${poolSize} + ${deviceSlack}`);
  }
}

// RSS every second, to compare the first minute with the last.
const rss = [];
const start = Date.now();
const sampler = setInterval(() => rss.push({ at: Date.now() - start, bytes: process.memoryUsage().rss }), 1000);

async function round(index, until) {
  const spec = specs[index % specs.length];
  const stack = buildStack(spec, { poolSize });
  const previous = setCurrentDeviceResource(stack.top);
  const roundSeed = seed + 1000 * index;
  const running = Array.from({ length: workers }, (_, i) =>
    startWorker({ ...workloadOptions, seed: roundSeed + 1 + i, forever: true, until, progressEvery: 50 }),
  );
  // One worker per round is terminated halfway through, buffers and copies in flight.
  const doomed = workers > 1 ? running[index % workers] : undefined;
  const halfway = Date.now() + (until - Date.now()) / 2;
  const main = new Workload({ ...workloadOptions, seed: roundSeed });
  try {
    while (Date.now() < until) {
      await main.run(50);
      checkMaxima(stack);
      if (doomed && Date.now() > halfway && !doomed.terminated) {
        doomed.terminated = true;
        // Once it has done some work (unless it is done already). A worker that failed is not
        // terminated; its failure is reported once, with the others' results below.
        const working = await Promise.race([
          doomed.firstProgress.then(() => true),
          doomed.done.then(() => false),
        ]).catch(() => false);
        if (working) {
          await doomed.worker.terminate();
          totals.terminated++;
        }
      }
    }
  } catch (error) {
    problem(`${spec}, main thread: ${error.stack ?? error}`);
  }
  for (const [i, { done }] of running.entries()) {
    try {
      const result = await done;
      if (result.counts) add(result.counts);
      else if (running[i] !== doomed) problem(`${spec}: worker ${i} exited with code ${result.exitCode}`);
    } catch (error) {
      problem(`${spec}, worker ${i}: ${error.message}`);
    }
  }
  try {
    main.close();
  } catch (error) {
    problem(`${spec}, freeing the main thread's buffers: ${error.stack ?? error}`);
  }
  add(main.counts);
  const counters = stack.counters();
  if (!isDeepStrictEqual(counters, expectedCounters(stack, [])))
    problem(`${spec}: its counters after every buffer was freed: ${JSON.stringify(counters)}`);
  setCurrentDeviceResource(previous);
  const held = stack.close();
  if (held !== 0) problem(`${spec}: ${held} bytes not given back upstream once closed`);
  totals.rounds++;
}

console.log(
  `soak: ${seconds} s on ${withCuda ? cuda.deviceName(0) : 'the host'}, ${workers} workers, stacks ${specs.join(', ')}, ` +
    `pool size ${poolSize / MiB} MiB, buffers up to ${maxSize} bytes, seed ${seed}`,
);
const end = start + seconds * 1000;
// A hang is a problem too: a round that does not end well after the run's end.
const watchdog = setTimeout(
  () => {
    console.error(`soak: FAIL: still running ${Math.max(60, seconds)} s after the end (a hang)`);
    process.exit(1);
  },
  (seconds + Math.max(60, seconds)) * 1000,
);
watchdog.unref();
for (let index = 0; Date.now() < end; index++) {
  await round(index, Math.min(end, Date.now() + roundSeconds * 1000));
}
clearInterval(sampler);
if (withCuda) {
  const left = deviceUsed() - usedAtStart;
  if (left > deviceSlack)
    problem(`the device has ${left} more bytes in use than at the start after every stack closed`);
}

// RSS: the mean of the first and the last minute (a fifth of the run when it is shorter than five
// minutes); the check needs two minutes at least, the first being warm-up.
const window = Math.min(60_000, (seconds * 1000) / 5);
const mean = (samples) => samples.reduce((sum, s) => sum + s.bytes, 0) / samples.length;
rss.push({ at: Date.now() - start, bytes: process.memoryUsage().rss });
const firstRss = mean(rss.filter((s, i) => i === 0 || s.at <= window));
const lastRss = mean(rss.filter((s, i) => i === rss.length - 1 || s.at >= seconds * 1000 - window));
const rssChecked = seconds >= 120;
if (rssChecked && lastRss > firstRss * 1.25 + 64 * MiB) {
  problem(`host RSS grew from ${(firstRss / MiB).toFixed(0)} MiB to ${(lastRss / MiB).toFixed(0)} MiB`);
}

const figures = {
  seconds: (Date.now() - start) / 1000,
  ...totals,
  workers,
  poolSize,
  maxSize,
  seed,
  peakMeter,
  peakDevice,
  firstRss,
  lastRss,
  rssChecked,
  problems,
};
if (options.json) writeFileSync(options.json, JSON.stringify(figures, null, 2));
const mib = (bytes) => `${(bytes / MiB).toFixed(0)} MiB`;
console.log(
  `soak: ${problems.length === 0 ? 'PASS' : `FAIL (${problems.length} problems)`} in ${figures.seconds.toFixed(0)} s: ` +
    `${totals.rounds} rounds, ${totals.steps} operations (${totals.allocations} allocations, ${totals.checks} checks ` +
    `of ${mib(totals.checkedBytes)}), ${totals.outOfMemory} out of memory, ${totals.terminated} workers terminated; ` +
    `peak held ${mib(peakMeter)} of ${mib(poolSize)}${withCuda ? `, device peak +${mib(peakDevice)}` : ''}; ` +
    `RSS first ${mib(firstRss)}, last ${mib(lastRss)}${rssChecked ? '' : ' (not checked under 2 minutes)'}`,
);
process.exit(problems.length === 0 ? 0 : 1);
