// rmmjs benchmarks: one table. `pnpm bench`, or `node tooling/scripts/bench.mjs [--json file]
// [--quick]` on a GPU machine without pnpm. Targets are ratios to peers measured in the same
// run (`targets` below); absolute times move between machines.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import * as core from '@rmmjs/core';
import { abiPairNs, abiRandomNs, driverPairNs, driverPoolPairNs } from '@rmmjs/test-addon';
import { median, pairNs, randomWorkload, runRandomWorkload } from './bench-workloads.mjs';
import { benchSuballocators } from './bench-suballocators.mjs';
import { benchCopies } from '@rmmjs/cli';
import { benchTransfers } from './bench-transfer.mjs';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const copiesOnly = args.includes('--copies-only');
const jsonPath = args.includes('--json') ? args[args.indexOf('--json') + 1] : undefined;
const gpu = core.cuda.isAvailable();
const MiB = 1 << 20;
const rows = [];
const results = { gpu, device: gpu ? core.cuda.deviceName(0) : 'host', rows };

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

// A JS pair against the same driver calls in a C++ loop: measured in alternation, so that the
// driver's own drift (it moves by tens of percent between runs here) hits both alike.
function alternating(js, driver, rounds = 9) {
  js();
  driver();
  const a = [];
  const b = [];
  for (let i = 0; i < rounds; i++) {
    a.push(js());
    b.push(driver());
  }
  const middle = (values) => values.sort((x, y) => x - y)[Math.floor(values.length / 2)];
  return [middle(a), middle(b)];
}

for (const [name, make, pairIterations, steps] of resources) {
  const mr = make();
  const n = quick ? Math.ceil(pairIterations / 10) : pairIterations;
  let driverLoop;
  if (name === 'CudaMemoryResource') driverLoop = () => driverPairNs(MiB, n);
  if (name === 'CudaAsyncMemoryResource') driverLoop = () => driverPoolPairNs(mr.poolHandle(), MiB, n);
  const [js, driver] = driverLoop
    ? alternating(() => pairNs(mr, MiB, n), driverLoop)
    : [median(() => pairNs(mr, MiB, n)), undefined];
  const native = median(() => abiPairNs(mr, MiB, n));
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
      `JS/driver ${(js / driver).toFixed(3)} (target <= 1.1)`,
    );
  }
  mr[Symbol.dispose]();
}

if (!copiesOnly && !args.includes('--no-suballocators')) await benchSuballocators({ record, quick, gpu });

// DeviceBuffer create+free of 64 bytes on the current device resource.
if (!copiesOnly) {
  const iterations = quick ? 20_000 : 200_000;
  const ns = median(() => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) new core.DeviceBuffer({ size: 64 }).free();
    return Number(process.hrtime.bigint() - start) / iterations;
  });
  const target = gpu ? '' : '(target < 1000 ns in host mode)';
  record('DeviceBuffer', `create+free 64 B on ${core.getCurrentDeviceResource().constructor.name}`, ns, 'ns', target);
}

// DeviceBuffers moved between worker threads (transfer / fromTransferred).
if (!copiesOnly && !args.includes('--no-threads')) await benchTransfers({ record, quick });

// Copies between host memory and the device (the same rows as `rmmjs bench`).
benchCopies(record, quick, gpu);

// Peers on the GPU machine (CuPy, PyTorch), measured in the same run.
if (gpu && !args.includes('--no-peers') && !copiesOnly) {
  const script = fileURLToPath(new URL('./bench_peers.py', import.meta.url));
  const run = spawnSync('python3', [script, ...(quick ? ['--quick'] : [])], { encoding: 'utf8' });
  if (run.status === 0) {
    const peers = JSON.parse(run.stdout);
    results.peers = peers;
    for (const [name, value] of Object.entries(peers))
      record('peers (Python)', name, value, name.includes('GB/s') ? 'GB/s' : 'ns');
  } else {
    console.log(`peers: not measured (${(run.stderr || run.error?.message || '').trim().split('\n').pop()})`);
  }
}

// Targets that are ratios to peers measured in this run.
const value = (group, name) => rows.find((r) => r.group === group && r.name.startsWith(name))?.value;
const peer = (name) => results.peers?.[name];
const targets = [
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
  ['pageable device->host / CuPy', value('copies', 'device->host'), peer('cupy device->host pageable GB/s'), '>=', 1.5],
  ['pinned->device / CuPy pinned', value('copies', 'pinned->device'), peer('cupy host->device pinned GB/s'), '>=', 0.9],
  ['device->pinned / CuPy pinned', value('copies', 'device->pinned'), peer('cupy device->host pinned GB/s'), '>=', 0.9],
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
    'Pool at 100,000 live / at 1,000',
    value('PoolMemoryResource', 'random ops with 100000'),
    value('PoolMemoryResource', 'random ops with 1000 '),
    '<=',
    2,
  ],
  [
    'Arena 8 threads / 1 thread (ops/s)',
    value('ArenaMemoryResource', '8 worker'),
    value('ArenaMemoryResource', '1 worker'),
    '>=',
    3,
    8,
  ],
  [
    'Logging pair / pool pair (C++)',
    value('adaptors over a pool', 'LoggingResourceAdaptor pair (C++)'),
    value('adaptors over a pool', 'pool pair 1 MiB (C++)'),
    '<=',
    3,
  ],
];
results.targets = [];
console.log('\ntargets (ratios measured in this run)');
// A target with a number of threads is n/a on a machine with fewer cores.
const cores = availableParallelism();
for (const [name, ours, theirs, op, target, threads = 1] of targets) {
  if (ours === undefined || theirs === undefined) continue;
  const ratio = ours / theirs;
  const met = op === '<=' ? ratio <= target : ratio >= target;
  const applies = cores >= threads;
  results.targets.push({ name, ratio, op, target, met: applies ? met : null });
  const verdict = !applies ? `n/a (${cores} cores)` : met ? 'met' : 'MISSED';
  console.log(`${name.padEnd(40)} ${ratio.toFixed(3).padStart(8)}  target ${op} ${target}  ${verdict}`);
}

if (jsonPath) writeFileSync(jsonPath, JSON.stringify(results, null, 2));
