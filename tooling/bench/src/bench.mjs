// rmmjs benchmarks: one table. `pnpm bench`, or `node tooling/scripts/bench.mjs [--json FILE]
// [--quick] [--runs N]` on a GPU machine without pnpm. Targets are ratios to peers measured in the
// same run (`targetsOf` below); absolute times move between machines. `--runs N` runs the table N
// times (a process each) and prints per row the median and the range over the runs;
// `--from-runs FILE...` prints that summary for runs already made (each file one run's --json).
// `--quick` runs a tenth of the iterations; `--no-suballocators`, `--no-threads` and `--no-peers`
// leave those sections out, `--copies-only` all but the copies.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as core from '@rmmjs/core';
import { abiPairNs, abiRandomNs, driverPairNs, driverPoolPairNs, napiFloorPairNs } from '@rmmjs/test-addon';
import { benchCopies, randomWorkload, runRandomWorkload } from '@rmmjs/cli';
import { exitWithUsage, parseCommandLine } from '@rmmjs/scripts/arguments.mjs';
import { alternatingMedians, median, pairNs } from './timing.mjs';
import { benchPeers } from './peers.mjs';
import { ADAPTORS, benchSuballocators, suballocatorCounts } from './suballocators.mjs';
import { benchTransfers } from './transfer.mjs';
import { scaleTargets } from './scale.mjs';
import { repeatRuns, summarizeRunFiles } from './runs.mjs';
import { judge, targetLine } from './targets.mjs';

// The sections a run can leave out (each restricts the table; none changes a figure).
const SKIPS = ['no-suballocators', 'no-threads', 'no-peers'];
const { values: args, positionals: runFiles } = parseCommandLine(
  'bench',
  {
    quick: { type: 'boolean' },
    runs: { type: 'string', value: 'N', number: { min: 1, whole: true } },
    json: { type: 'string', value: 'FILE' },
    'from-runs': { type: 'boolean' },
    'copies-only': { type: 'boolean' },
    ...Object.fromEntries(SKIPS.map((flag) => [flag, { type: 'boolean' }])),
  },
  { positionals: { what: 'the run files of --from-runs' } },
);
const quick = args.quick === true;
const copiesOnly = args['copies-only'] === true;
const jsonPath = args.json;
const runs = args.runs ?? 1;
if (args['from-runs']) {
  if (runFiles.length === 0)
    exitWithUsage('bench', '--from-runs needs the files of runs already made (--from-runs FILE...)');
  process.exit(summarizeRunFiles({ files: runFiles, targetsOf, jsonPath }) ? 0 : 1);
}
if (runFiles.length > 0) exitWithUsage('bench', `unexpected argument ${runFiles[0]} (run files follow --from-runs)`);
if (runs > 1) {
  const flags = ['quick', 'copies-only', ...SKIPS].filter((flag) => args[flag]).map((flag) => `--${flag}`);
  const script = fileURLToPath(import.meta.url);
  process.exit(repeatRuns({ script, args: flags, runs, targetsOf, jsonPath }) ? 0 : 1);
}

const started = process.hrtime.bigint();
const gpu = core.cuda.isAvailable();
const MiB = 1 << 20;
const rows = [];
const results = { gpu, device: gpu ? core.cuda.deviceName(0) : 'host', quick, rows, sections: {} };
// Seconds each section took (results.sections; printed at the end), to size the iteration counts.
let lapStart = started;
function lap(section) {
  const now = process.hrtime.bigint();
  results.sections[section] = Number(now - lapStart) / 1e9;
  lapStart = now;
}

function record(group, name, value, unit, note = '') {
  rows.push({ group, name, value, unit, note });
  console.log(
    `${group.padEnd(24)} ${name.padEnd(44)} ${value.toFixed(value < 10 ? 3 : 1).padStart(12)} ${unit.padEnd(6)} ${note}`,
  );
}

console.log(`rmmjs bench on ${results.device}${quick ? ' (quick)' : ''}\n`);

// Resources: allocate+free pairs and the random workload, from JS and through the C ABI in C++.
const resources = copiesOnly
  ? []
  : gpu
    ? [
        ['CudaMemoryResource', () => new core.CudaMemoryResource(), 2_000, 10_000],
        ['CudaAsyncMemoryResource', () => new core.CudaAsyncMemoryResource(), 50_000, 100_000],
        ['PinnedHostMemoryResource', () => new core.PinnedHostMemoryResource(), 500, 2_000],
      ]
    : [['SystemMemoryResource', () => new core.SystemMemoryResource(), 200_000, 100_000]];

// What any allocate+free pair made from JavaScript pays to Node-API itself: two calls taking and
// returning what allocate and deallocate do, doing nothing.
const napiFloor = copiesOnly ? 0 : median(() => napiFloorPairNs(MiB, quick ? 20_000 : 200_000));
if (!copiesOnly) record('Node-API', 'floor: an allocate+free pair doing nothing', napiFloor, 'ns');

for (const [name, make, pairIterations, steps] of resources) {
  const mr = make();
  const n = quick ? Math.ceil(pairIterations / 10) : pairIterations;
  let driverLoop;
  if (name === 'CudaMemoryResource') driverLoop = () => driverPairNs(MiB, n);
  if (name === 'CudaAsyncMemoryResource') driverLoop = () => driverPoolPairNs(mr.poolHandle(), MiB, n);
  const jsLoop = () => pairNs(mr, MiB, n);
  const abiLoop = () => abiPairNs(mr, MiB, n);
  // In turns, so that the ratios of the three (the target's and the C ABI's) share the host's drift.
  const [js, native, driver] = driverLoop
    ? alternatingMedians([jsLoop, abiLoop, driverLoop], 9)
    : [median(jsLoop), median(abiLoop), undefined];
  record(name, 'pair 1 MiB from JS', js, 'ns');
  record(name, 'pair 1 MiB through the C ABI (C++)', native, 'ns', `JS adds ${(js - native).toFixed(0)} ns`);
  const workload = randomWorkload({ steps: quick ? steps / 10 : steps });
  record(
    name,
    `random workload (${workload.steps} steps) from JS`,
    median(() => runRandomWorkload(mr, workload), 3),
    'ns/op',
  );
  record(
    name,
    'random workload through the C ABI (C++)',
    median(() => abiRandomNs(mr, workload.sizes, workload.frees), 3),
    'ns/op',
  );
  if (name === 'CudaMemoryResource') {
    record(
      name,
      'pair 1 MiB: cuMemAlloc+cuMemFree C++ loop',
      driver,
      'ns',
      `JS/driver ${(js / driver).toFixed(3)} (target <= 1.05)`,
    );
  }
  if (name === 'CudaAsyncMemoryResource') {
    record(
      name,
      'pair 1 MiB: cuMemAllocFromPoolAsync C++ loop',
      driver,
      'ns',
      `JS/driver ${(js / driver).toFixed(3)} (target <= 1.1; the C ABI pair plus the Node-API floor alone: ${((native + napiFloor) / driver).toFixed(3)})`,
    );
  }
  mr[Symbol.dispose]();
}
lap('resources');

if (!copiesOnly && !args['no-suballocators']) await benchSuballocators({ record, quick, gpu });
lap('sub-allocators and adaptors');

// DeviceBuffer create+free of 64 bytes on the current device resource (on a GPU that is
// CudaMemoryResource, ~70 us a pair: fewer iterations; the host-mode floor is the target).
if (!copiesOnly) {
  const iterations = (quick ? 20_000 : 200_000) / (gpu ? 100 : 1);
  const ns = median(() => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) new core.DeviceBuffer({ size: 64 }).free();
    return Number(process.hrtime.bigint() - start) / iterations;
  });
  const target = gpu ? '' : '(target < 1000 ns in host mode)';
  record('DeviceBuffer', `create+free 64 B on ${core.getCurrentDeviceResource().constructor.name}`, ns, 'ns', target);
}
lap('DeviceBuffer');

// DeviceBuffers moved between worker threads (transfer / fromTransferred).
if (!copiesOnly && !args['no-threads']) await benchTransfers({ record, quick });
lap('transfers');

// Copies between host memory and the device (the same rows as `rmmjs bench`).
benchCopies(record, quick, gpu);
lap('copies');

// Peers on the GPU machine (CuPy, PyTorch), measured in the same run on the same workload (in
// host mode, a dry run of the script).
if (!args['no-peers'] && !copiesOnly) {
  const { pairs, steps } = suballocatorCounts(quick);
  results.peers = benchPeers({ record, quick, gpu, workload: randomWorkload({ steps }), pairs });
}
lap('peers');

// Targets that are ratios to peers measured in this run.
const value = (group, name) => rows.find((r) => r.group === group && r.name.startsWith(name))?.value;
const peer = (name) => results.peers?.[name];
results.targets = [];
console.log('\ntargets (ratios measured in this run)');
for (const [name, ours, theirs, op, target, options] of targetsOf(value, peer)) {
  if (ours === undefined || theirs === undefined) continue;
  const ratio = ours / theirs;
  const { met, verdict } = judge(ratio, op, target, options);
  results.targets.push({ name, ratio, op, target, met, verdict });
  console.log(targetLine(name, ratio, op, target, verdict));
}

results.seconds = Number(process.hrtime.bigint() - started) / 1e9;
const sections = Object.entries(results.sections).map(([name, seconds]) => `${name} ${seconds.toFixed(1)}`);
console.log(`\ntook ${results.seconds.toFixed(1)} s: ${sections.join(', ')} s`);
if (jsonPath) writeFileSync(jsonPath, JSON.stringify(results, null, 2));

// [name, ours, theirs, op, target, { workers }]: `value(group, row name prefix)` looks a row up,
// `peer(name)` a peer's figure. `workers`: the threads its rows run at once (n/a on fewer cores).
function targetsOf(value, peer) {
  return [
    [
      'Cuda pair / cuMemAlloc loop',
      value('CudaMemoryResource', 'pair 1 MiB from JS'),
      value('CudaMemoryResource', 'pair 1 MiB: cuMemAlloc'),
      '<=',
      1.05,
    ],
    [
      'CudaAsync pair / pool C++ loop',
      value('CudaAsyncMemoryResource', 'pair 1 MiB from JS'),
      value('CudaAsyncMemoryResource', 'pair 1 MiB: cuMemAllocFromPoolAsync'),
      '<=',
      1.1,
    ],
    ['pageable host->device / CuPy', value('copies', 'host->device'), peer('cupy host->device pageable GB/s'), '>=', 2],
    [
      'pageable device->host / CuPy',
      value('copies', 'device->host'),
      peer('cupy device->host pageable GB/s'),
      '>=',
      1.5,
    ],
    ['pageable host->device / pinned', value('copies', 'host->device'), value('copies', 'pinned->device'), '>=', 0.9],
    ['pageable device->host / pinned', value('copies', 'device->host'), value('copies', 'device->pinned'), '>=', 0.9],
    [
      'pinned->device / CuPy pinned',
      value('copies', 'pinned->device'),
      peer('cupy host->device pinned GB/s'),
      '>=',
      0.9,
    ],
    [
      'device->pinned / CuPy pinned',
      value('copies', 'device->pinned'),
      peer('cupy device->host pinned GB/s'),
      '>=',
      0.9,
    ],
    ...['PoolMemoryResource', 'ArenaMemoryResource', 'FixedSizeMemoryResource', 'BinningMemoryResource'].map((name) => [
      `${name} pair / CuPy MemoryPool pair`,
      value(name, 'pair 1 MiB from JS'),
      peer('cupy MemoryPool pair 1 MiB'),
      '<=',
      0.5,
    ]),
    [
      'PoolMemoryResource random / CuPy random',
      value('PoolMemoryResource', 'random workload ('),
      peer('cupy MemoryPool random ns/op'),
      '<=',
      0.5,
    ],
    [
      'ArenaMemoryResource random / CuPy random',
      value('ArenaMemoryResource', 'random workload ('),
      peer('cupy MemoryPool random ns/op'),
      '<=',
      0.5,
    ],
    ...scaleTargets(value),
    [
      'Arena 8 threads / 1 thread (ops/s)',
      value('ArenaMemoryResource', '8 worker'),
      value('ArenaMemoryResource', '1 worker'),
      '>=',
      3,
      { workers: 8 },
    ],
    // Absolute, not a ratio (so its second figure is 1): what an adaptor adds, in ns, to the pool
    // pairs measured in turns with it.
    ...ADAPTORS.map((name) => [
      `${name.replace('ResourceAdaptor', '')} ns added to a pool pair`,
      value('adaptors over a pool', `${name} adds to a pool pair (C++)`),
      1,
      '<=',
      30,
    ]),
    [
      'Logging pair / pool pair (C++)',
      value('adaptors over a pool', 'LoggingResourceAdaptor pair (C++)'),
      value('adaptors over a pool', 'pool pair alongside the logged pair (C++)'),
      '<=',
      3,
    ],
  ];
}
