// Benchmarks of ArenaMemoryResource (not tests): `node tooling/bench/src/arena.mjs [--quick]
// [--threads 1,2,4,8]` after `pnpm build`, in host mode (RMMJS_DISABLE_CUDA=1), on the fake driver
// (RMMJS_CUDA_LIBRARY) or a GPU. Prints the allocate+free pair of 1 MiB and @rmmjs/cli's random
// workload through the C ABI (C++ loops of @rmmjs/test-addon) and from JavaScript, then operations
// per second with 1, 2, 4 and 8 worker_threads and native threads sharing one arena (--threads
// picks the counts), with the CPU time per operation (process CPU time / operations: flat when
// threads share no hot lock, even on a loaded machine where the rates mean little). Each figure is
// the minimum (times) or maximum (rates) of several runs. The random workload needs about 1 GiB:
// on the fake driver set RMMJS_FAKE_CUDA_MEMORY=4294967296.
import { Worker } from 'node:worker_threads';
import * as core from '@rmmjs/core';
import { ArenaMemoryResource } from '@rmmjs/arena';
import { abiPairNs, abiRandomNs, nativeThreadsWorkload } from '@rmmjs/test-addon';
import { randomWorkload, runRandomWorkload } from '@rmmjs/cli';
import { parseCommandLine } from '@rmmjs/scripts/arguments.mjs';
import { pairNs } from './timing.mjs';

const { values: options } = parseCommandLine('arena', {
  quick: { type: 'boolean' },
  threads: { type: 'string', value: 'N,...', list: { min: 1, max: 64, whole: true } },
});
const quick = options.quick === true;
const MiB = 1 << 20;
const rounds = quick ? 3 : 7;
const best = (fn, n = rounds, pick = Math.min) => pick(...Array.from({ length: n }, fn));

const upstream = core.getCurrentDeviceResource();
const mr = new ArenaMemoryResource(upstream, { arenaSize: 1024 * MiB });
const line = (name, value, unit, note = '') =>
  console.log(`${name.padEnd(58)} ${value.toFixed(1).padStart(12)} ${unit.padEnd(6)} ${note}`);
const cpuNs = (start) => {
  const { user, system } = process.cpuUsage(start);
  return (user + system) * 1000;
};
console.log(
  `ArenaMemoryResource on ${core.cuda.isAvailable() ? core.cuda.deviceName(0) : 'host'} (upstream ${upstream.constructor.name})`,
);

const pairs = quick ? 100_000 : 1_000_000;
line(
  'pair 1 MiB through the C ABI (C++ loop)',
  best(() => abiPairNs(mr, MiB, pairs)),
  'ns',
);
line(
  'pair 256 B through the C ABI (C++ loop)',
  best(() => abiPairNs(mr, 256, pairs)),
  'ns',
);
line(
  'pair 1 MiB from JS',
  best(() => pairNs(mr, MiB, pairs / 4)),
  'ns',
);
const workload = randomWorkload({ steps: quick ? 20_000 : 100_000 });
line(
  `random workload (${workload.steps} steps, 1 B..4 MiB) through the C ABI`,
  best(() => abiRandomNs(mr, workload.sizes, workload.frees)),
  'ns/op',
);
line(
  'random workload from JS',
  best(() => runRandomWorkload(mr, workload)),
  'ns/op',
);
const small = randomWorkload({ steps: quick ? 20_000 : 100_000, maxSize: MiB });
line(
  'random workload (1 B..1 MiB) through the C ABI',
  best(() => abiRandomNs(mr, small.sizes, small.frees)),
  'ns/op',
);

// Threads sharing the arena: each does allocate+free pairs of 1 MiB for `seconds`.
const coreEntry = import.meta.resolve('@rmmjs/core');
const arenaEntry = import.meta.resolve('@rmmjs/arena');
const seconds = quick ? 0.3 : 1;
async function workersRun(count) {
  const previous = core.setCurrentDeviceResource(mr);
  const workers = Array.from(
    { length: count },
    () =>
      new Worker(
        `
    const { parentPort } = await import('node:worker_threads');
    const core = await import(${JSON.stringify(coreEntry)});
    await import(${JSON.stringify(arenaEntry)});
    const mr = core.getCurrentDeviceResource();
    parentPort.postMessage('ready');
    parentPort.once('message', () => {
      const end = performance.now() + ${seconds * 1000};
      let ops = 0;
      while (performance.now() < end) {
        for (let i = 0; i < 1000; i++) mr.deallocate(mr.allocate(${MiB}), ${MiB});
        ops += 2000;
      }
      parentPort.postMessage(ops);
    });`,
        { eval: true, type: 'module' },
      ),
  );
  await Promise.all(workers.map((w) => new Promise((resolve) => w.once('message', resolve))));
  const done = workers.map((w) => new Promise((resolve) => w.once('message', resolve)));
  const cpu = process.cpuUsage();
  for (const w of workers) w.postMessage('go');
  const ops = (await Promise.all(done)).reduce((a, b) => a + b, 0);
  const cpuPerOp = cpuNs(cpu) / ops;
  await Promise.all(workers.map((w) => w.terminate()));
  core.setCurrentDeviceResource(previous);
  return { rate: ops / seconds, cpuPerOp };
}
const counts = options.threads ?? [1, 2, 4, 8];
for (const count of counts) {
  let rate = 0;
  let cpuPerOp = Infinity;
  for (let i = 0; i < (quick ? 1 : 3); i++) {
    const run = await workersRun(count);
    rate = Math.max(rate, run.rate);
    cpuPerOp = Math.min(cpuPerOp, run.cpuPerOp);
  }
  line(
    `${count} worker_threads, pairs of 1 MiB: ops/s (all workers)`,
    rate,
    'ops/s',
    `CPU ${cpuPerOp.toFixed(1)} ns/op`,
  );
}
for (const threads of counts) {
  let rate = 0;
  let cpuPerOp = Infinity;
  for (let i = 0; i < (quick ? 2 : 3); i++) {
    const cpu = process.cpuUsage();
    const r = nativeThreadsWorkload(mr, {
      threads,
      iterations: quick ? 200_000 : 1_000_000,
      minBytes: MiB,
      maxBytes: MiB,
      maxLive: 1,
    });
    if (r.errors.length > 0) throw new Error(r.errors[0]);
    rate = Math.max(rate, r.operations / r.seconds);
    cpuPerOp = Math.min(cpuPerOp, cpuNs(cpu) / r.operations);
  }
  line(
    `${threads} native threads, pairs of 1 MiB: ops/s (all threads)`,
    rate,
    'ops/s',
    `CPU ${cpuPerOp.toFixed(1)} ns/op`,
  );
}
mr[Symbol.dispose]();
