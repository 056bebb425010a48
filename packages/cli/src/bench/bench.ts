/**
 * `rmmjs bench`: the benchmark a user runs on their own machine, from JavaScript: allocate+free
 * pairs and the random workload per resource, worker threads sharing a resource, DeviceBuffer
 * create+free and host<->device copies. The workloads are those of the repository's benchmark
 * (`pnpm bench`), which adds what needs its test-only addon and peers: the same loops through the
 * C ABI in C++, the driver's own loops, CuPy and PyTorch, and the targets.
 */
import {
  availableDeviceMemory,
  cuda,
  CudaAsyncMemoryResource,
  CudaMemoryResource,
  DeviceBuffer,
  getCurrentDeviceResource,
  PinnedHostMemoryResource,
  SystemMemoryResource,
  UpstreamResourceAdaptor,
  type DeviceMemoryResource,
} from '@rmmjs/core';
import { ArenaMemoryResource } from '@rmmjs/arena';
import { BinningMemoryResource } from '@rmmjs/binning';
import { FixedSizeMemoryResource } from '@rmmjs/fixed-size';
import { PoolMemoryResource } from '@rmmjs/pool';
import { threadOpsPerSecond } from './threads.js';
import { median, pairNs, randomWorkload, runRandomWorkload } from './workloads.js';
import {
  arrayOf,
  oneOf,
  optional,
  validateBoolean,
  validateFunction,
  validateOptionalFunction,
  validateOptions,
} from '../validate.js';

const MiB = 1 << 20;
const GiB = 1 << 30;

/** The resource names `rmmjs bench --resources` and `BenchOptions.resources` accept. */
export const BENCH_RESOURCES = ['cuda', 'async', 'pinned', 'pool', 'arena', 'fixed-size', 'binning'] as const;
/** A resource of `rmmjs bench`: one of `BENCH_RESOURCES`. */
export type BenchResourceName = (typeof BENCH_RESOURCES)[number];

/** One measurement of `runBench`: a line of `rmmjs bench`. */
export interface BenchRow {
  /** What it measures: the resource's class name, `DeviceBuffer` or `copies`. */
  group: string;
  /** The measurement, e.g. `pair 1 MiB from JS`. */
  name: string;
  /** The result, in `unit`. */
  value: number;
  /** `ns` (per allocate+free pair, or per `DeviceBuffer` create+free), `ns/op`, `Mops/s` or `GB/s`. */
  unit: string;
  /** A remark printed after the value (empty in `runBench`'s rows). */
  note: string;
}

/** What `runBench` measured (`rmmjs bench --json` prints it). */
export interface BenchReport {
  /** True on a GPU, false in host mode. */
  gpu: boolean;
  /** The current device's name, or `host` in host mode. */
  device: string;
  /** Whether it ran a tenth of the iterations (`BenchOptions.quick`). */
  quick: boolean;
  /** The measurements, in the order they were made. */
  rows: BenchRow[];
  /** Resources that did not run, or stopped part of the way, and why. */
  skipped: {
    /** The resource. */
    resource: BenchResourceName;
    /** Why: `needs a GPU (host mode)`, `could not be built: ...` or `stopped: ...` with the error's message. */
    why: string;
  }[];
}

/** Options of `runBench`. */
export interface BenchOptions {
  /** The resources to measure (default: all of `BENCH_RESOURCES`). */
  resources?: readonly BenchResourceName[];
  /** A tenth of the iterations (default false). */
  quick?: boolean;
  /** Each row as it is measured. */
  onRow?: (row: BenchRow) => void;
  /** Before each measurement: what, and how many of how many are done. */
  onStep?: (what: string, done: number, total: number) => void;
}

interface BenchResource {
  name: BenchResourceName;
  make: () => DeviceMemoryResource;
  /** Pairs and random steps (before --quick). */
  pairs: number;
  steps: number;
  /** Serves the random workload's sizes up to 4 MiB. */
  random: boolean;
  threads: boolean;
}

/** The benchmark's sizes where they fit: at most half the free memory of the device. */
function fitting(bytes: number): number {
  const half = Math.floor(availableDeviceMemory()[0] / 2);
  return Math.min(bytes, half - (half % 256));
}

function benchResources(gpu: boolean): BenchResource[] {
  const base = () => (gpu ? new CudaMemoryResource() : new SystemMemoryResource());
  const pairs = 200_000;
  const pool = (upstream: DeviceMemoryResource) =>
    new PoolMemoryResource(upstream, { initialPoolSize: fitting(2 * GiB) });
  return [
    {
      name: 'cuda',
      make: base,
      pairs: gpu ? 2_000 : 200_000,
      steps: gpu ? 10_000 : 100_000,
      random: true,
      threads: false,
    },
    {
      name: 'async',
      make: () => new CudaAsyncMemoryResource(),
      pairs: 50_000,
      steps: 100_000,
      random: true,
      threads: false,
    },
    {
      name: 'pinned',
      make: () => new PinnedHostMemoryResource(),
      pairs: 500,
      steps: 2_000,
      random: true,
      threads: false,
    },
    { name: 'pool', make: () => pool(base()), pairs, steps: 100_000, random: true, threads: true },
    {
      name: 'arena',
      make: () => new ArenaMemoryResource(base(), { arenaSize: fitting(8 * GiB) }),
      pairs,
      steps: 100_000,
      random: true,
      threads: true,
    },
    {
      name: 'fixed-size',
      make: () => new FixedSizeMemoryResource(base(), { blockSize: MiB, blocksToPreallocate: 128 }),
      pairs,
      steps: 0,
      random: false,
      threads: false,
    },
    {
      name: 'binning',
      make: () => new BinningMemoryResource(pool(base()), { minSizeExponent: 8, maxSizeExponent: 20 }),
      pairs,
      steps: 100_000,
      random: true,
      threads: false,
    },
  ];
}

/** Resources are disposed with their upstreams (the ones made for them). */
function disposeStack(mr: DeviceMemoryResource): void {
  const stack: DeviceMemoryResource[] = [];
  for (let at: DeviceMemoryResource | undefined = mr; at !== undefined;) {
    stack.push(at);
    at = at instanceof UpstreamResourceAdaptor ? at.upstreamMr : undefined;
  }
  for (const each of stack) each[Symbol.dispose]();
}

/**
 * Runs `rmmjs bench`: per resource, ns per allocate+free pair of 1 MiB and per operation of the
 * random workload (and, for pool and arena, operations per second of 1, 2, 4 and 8 worker threads),
 * then `DeviceBuffer` create+free of 64 bytes on the current device resource and host<->device
 * copies. A resource that cannot be built, or fails part of the way, goes to `skipped` (the rows it
 * measured stay).
 */
export async function runBench(options: BenchOptions = {}): Promise<BenchReport> {
  const given = validateOptions<BenchOptions>(options);
  const wanted = optional(arrayOf(oneOf(BENCH_RESOURCES)))(given.resources, 'options.resources') ?? BENCH_RESOURCES;
  const quick = given.quick === undefined ? false : validateBoolean(given.quick, 'options.quick');
  const onRow = validateOptionalFunction<(row: BenchRow) => void>(given.onRow, 'options.onRow') ?? (() => {});
  const onStep =
    validateOptionalFunction<NonNullable<BenchOptions['onStep']>>(given.onStep, 'options.onStep') ?? (() => {});
  const gpu = cuda.isAvailable();
  const report: BenchReport = { gpu, device: gpu ? cuda.deviceName() : 'host', quick, rows: [], skipped: [] };
  const record = (group: string, name: string, value: number, unit: string, note = '') => {
    const row = { group, name, value, unit, note };
    report.rows.push(row);
    onRow(row);
  };
  const scale = (n: number) => (quick ? Math.ceil(n / 10) : n);
  const resources = benchResources(gpu).filter((r) => wanted.includes(r.name));
  const steps = resources.length + 2;
  let step = 0;

  for (const resource of resources) {
    onStep(resource.name, step++, steps);
    if ((resource.name === 'async' || resource.name === 'pinned') && !gpu) {
      report.skipped.push({ resource: resource.name, why: 'needs a GPU (host mode)' });
      continue;
    }
    let mr: DeviceMemoryResource;
    try {
      mr = resource.make();
    } catch (error) {
      report.skipped.push({ resource: resource.name, why: `could not be built: ${(error as Error).message}` });
      continue;
    }
    const group = mr.constructor.name;
    try {
      const pairs = scale(resource.pairs);
      record(
        group,
        'pair 1 MiB from JS',
        median(() => pairNs(mr, MiB, pairs)),
        'ns',
      );
      if (resource.random) {
        const workload = randomWorkload({ steps: scale(resource.steps) });
        record(
          group,
          `random workload (${workload.steps} steps) from JS`,
          median(() => runRandomWorkload(mr, workload), 3),
          'ns/op',
        );
      }
      if (resource.threads) {
        for (const workers of [1, 2, 4, 8]) {
          const opsPerSecond = await threadOpsPerSecond(mr, workers, { seconds: quick ? 0.1 : 1 });
          record(group, `${workers} worker threads, pairs of 1 MiB`, opsPerSecond / 1e6, 'Mops/s');
        }
      }
    } catch (error) {
      // Out of memory on a small device, for one: the rows measured so far stand.
      report.skipped.push({ resource: resource.name, why: `stopped: ${(error as Error).message}` });
    } finally {
      disposeStack(mr);
    }
  }

  // DeviceBuffer create+free of 64 bytes on the current device resource.
  onStep('DeviceBuffer', step++, steps);
  const iterations = quick ? 20_000 : 200_000;
  const ns = median(() => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) new DeviceBuffer({ size: 64 }).free();
    return Number(process.hrtime.bigint() - start) / iterations;
  });
  record('DeviceBuffer', `create+free 64 B on ${getCurrentDeviceResource().constructor.name}`, ns, 'ns');

  onStep('copies', step++, steps);
  benchCopies(record, quick, gpu);
  onStep('done', steps, steps);
  return report;
}

/**
 * Records copies between host memory and the device in GB/s: pageable both ways, and pinned both
 * ways on a GPU; 32 MiB with `quick`, else 256 MiB. `runBench` and the repository's benchmark
 * script both measure copies with it.
 */
export function benchCopies(
  record: (group: string, name: string, value: number, unit: string) => void,
  quick: boolean,
  gpu: boolean,
): void {
  validateFunction(record, 'record');
  validateBoolean(quick, 'quick');
  validateBoolean(gpu, 'gpu');
  const size = (quick ? 32 : 256) * MiB;
  const host = new Uint8Array(size).fill(1);
  const buffer = new DeviceBuffer({ size });
  // A copy takes a few milliseconds and the host's memory is shared: the median of 7 (after a
  // warm-up), for the pageable and the pinned copies alike.
  const gbps = (fn: () => void) =>
    median(() => {
      const start = process.hrtime.bigint();
      fn();
      return size / Number(process.hrtime.bigint() - start);
    }, 7);
  try {
    record(
      'copies',
      `host->device ${size / MiB} MiB (pageable)`,
      gbps(() => buffer.copyFromHost(host)),
      'GB/s',
    );
    record(
      'copies',
      `device->host ${size / MiB} MiB (pageable)`,
      gbps(() => buffer.copyToHost(host)),
      'GB/s',
    );
    if (gpu) {
      const pinned = new PinnedHostMemoryResource();
      const staging = new DeviceBuffer({ size, mr: pinned });
      try {
        record(
          'copies',
          `pinned->device ${size / MiB} MiB`,
          gbps(() => {
            buffer.copyFromDevice(staging);
            buffer.stream.synchronize();
          }),
          'GB/s',
        );
        record(
          'copies',
          `device->pinned ${size / MiB} MiB`,
          gbps(() => {
            staging.copyFromDevice(buffer);
            staging.stream.synchronize();
          }),
          'GB/s',
        );
      } finally {
        staging.free();
        pinned[Symbol.dispose]();
      }
    }
  } finally {
    buffer.free();
  }
}
