// `rmmjs bench`: the rows it measures (values vary between machines and runs; names and units do not).
import { describe, expect, it } from 'vitest';
import { backend, GiB, onFake, onHost, withCuda } from '@rmmjs/test-helpers';
import { BENCH_RESOURCES, randomWorkload, runBench, threadOpsPerSecond, type BenchReport } from '@rmmjs/cli';
import { CudaMemoryResource, cuda, getCurrentDeviceResource } from '@rmmjs/core';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { StatisticsResourceAdaptor } from '@rmmjs/statistics';
import { lines, rmmjs } from './run-cli.js';

const base = withCuda() ? 'CudaMemoryResource' : 'SystemMemoryResource';
const pinnedCopies = (prefix = '') =>
  withCuda() ? [`${prefix}pinned->device 32 MiB`, `${prefix}device->pinned 32 MiB`] : [];

describe(`rmmjs bench (${backend()})`, () => {
  it('--quick --json: the rows of each resource, DeviceBuffer and the copies', () => {
    // The random workload holds up to 1000 allocations of up to 4 MiB: more than the fake
    // driver's 256 MiB (its memory is address space until touched).
    // A quick bench takes ~10 s alone, several times that under a sanitizer or on a busy machine.
    const run = rmmjs(['bench', '--quick', '--resources', 'cuda,pool,fixed-size,async', '--json'], {
      env: { RMMJS_FAKE_CUDA_MEMORY: String(8 * GiB) },
      timeout: 280_000,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout) as BenchReport;
    expect([report.gpu, report.quick]).toEqual([withCuda(), true]);
    const steps = withCuda() ? 1000 : 10000;
    expect(report.rows.map((r) => `${r.group}: ${r.name} (${r.unit})`)).toEqual([
      `${base}: pair 1 MiB from JS (ns)`,
      `${base}: random workload (${steps} steps) from JS (ns/op)`,
      ...(withCuda()
        ? [
            'CudaAsyncMemoryResource: pair 1 MiB from JS (ns)',
            'CudaAsyncMemoryResource: random workload (10000 steps) from JS (ns/op)',
          ]
        : []),
      'PoolMemoryResource: pair 1 MiB from JS (ns)',
      'PoolMemoryResource: random workload (10000 steps) from JS (ns/op)',
      ...[1, 2, 4, 8].map((n) => `PoolMemoryResource: ${n} worker threads, pairs of 1 MiB (Mops/s)`),
      'FixedSizeMemoryResource: pair 1 MiB from JS (ns)',
      `DeviceBuffer: create+free 64 B on ${base} (ns)`,
      'copies: host->device 32 MiB (pageable) (GB/s)',
      'copies: device->host 32 MiB (pageable) (GB/s)',
      ...pinnedCopies('copies: ').map((name) => `${name} (GB/s)`),
    ]);
    for (const row of report.rows) expect(row.value).toBeGreaterThan(0);
    expect(report.skipped).toEqual(onHost() ? [{ resource: 'async', why: 'needs a GPU (host mode)' }] : []);
  }, 300_000);

  it('prints a header, then a line per row as it goes', () => {
    const run = rmmjs(['bench', '--quick', '--resources', 'fixed-size']);
    expect(run.status).toBe(0);
    const out = lines(run.stdout);
    expect(out[0]).toMatch(
      onHost()
        ? /^rmmjs bench on host \(no GPU: device memory is host memory\) \(quick\)$/
        : /^rmmjs bench on .+ \(quick\)$/,
    );
    expect(out[1]).toBe('');
    expect(out.slice(2).map((line) => line.replace(/ +\d+\.\d+ +/, ' | '))).toEqual([
      'FixedSizeMemoryResource  pair 1 MiB from JS | ns',
      `DeviceBuffer             create+free 64 B on ${base} | ns`,
      'copies                   host->device 32 MiB (pageable) | GB/s',
      'copies                   device->host 32 MiB (pageable) | GB/s',
      ...pinnedCopies('copies                   ').map((name) => `${name} | GB/s`),
    ]);
  });

  it.runIf(onFake())('a resource that runs out of memory stops; the rows before stand', () => {
    const run = rmmjs(['bench', '--quick', '--resources', 'async', '--json']);
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout) as BenchReport;
    expect(report.rows[0]).toMatchObject({ group: 'CudaAsyncMemoryResource', name: 'pair 1 MiB from JS' });
    expect(report.skipped).toHaveLength(1);
    expect(report.skipped[0].resource).toBe('async');
    expect(report.skipped[0].why).toMatch(/^stopped: .*CUDA_ERROR_OUT_OF_MEMORY/);
    expect(report.rows.map((r) => r.group)).toContain('DeviceBuffer');
  });

  it('pinned: PinnedHostMemoryResource on a GPU (or the fake driver), skipped in host mode', async () => {
    const report = await runBench({ resources: ['pinned'], quick: true });
    if (onHost()) {
      expect(report.skipped).toEqual([{ resource: 'pinned', why: 'needs a GPU (host mode)' }]);
    } else {
      expect(report.skipped).toEqual([]);
      expect(report.rows.slice(0, 2).map((r) => `${r.group}: ${r.name}`)).toEqual([
        'PinnedHostMemoryResource: pair 1 MiB from JS',
        'PinnedHostMemoryResource: random workload (200 steps) from JS',
      ]);
    }
  });

  it('threadOpsPerSecond rejects when a worker fails part of the way (it used to wait forever)', async () => {
    // Room for one 1 MiB allocation, which this thread takes as soon as no worker holds it: every
    // allocation of the workers fails from then on (however the machine schedules them).
    using limited = new LimitingResourceAdaptor(getCurrentDeviceResource(), 1 << 20);
    let held = 0n;
    const grab = setInterval(() => {
      try {
        held = limited.allocate(1 << 20);
        clearInterval(grab);
      } catch {
        // a worker holds it: the next turn
      }
    }, 1);
    try {
      await expect(threadOpsPerSecond(limited, 2, { seconds: 60 })).rejects.toThrow(/Exceeded memory limit/);
    } finally {
      clearInterval(grab);
      if (held !== 0n) limited.deallocate(held, 1 << 20);
    }
  });

  it('an unknown resource: exit 2', () => {
    const run = rmmjs(['bench', '--resources', 'pool,turbo']);
    expect(run.status).toBe(2);
    expect(lines(run.stderr)[0]).toBe(
      `rmmjs bench: --resources: unknown resource 'turbo' (choose from ${BENCH_RESOURCES.join(', ')})`,
    );
  });

  it("runs the benchmark scripts' random workload (seed 42: the same sizes and frees)", () => {
    const workload = randomWorkload({ steps: 3 });
    expect([...workload.sizes, ...workload.frees, workload.remaining]).toEqual([2521212, 0, 2809069, 0, 0, 0, 1]);
  });

  it('runBench with no resources measures DeviceBuffer and the copies', async () => {
    const rows: string[] = [];
    const report = await runBench({ resources: [], quick: true, onRow: (row) => rows.push(row.name) });
    expect(rows).toEqual(report.rows.map((r) => r.name));
    expect(rows[0]).toBe(`create+free 64 B on ${base}`);
    expect(rows).toHaveLength(withCuda() ? 5 : 3);
  });
});

describe('threadOpsPerSecond', () => {
  it.runIf(onFake())("runs on the resource given when this thread's current device is not 0", async () => {
    // Worker threads start on device 0: they must get the resource itself, not their current one.
    cuda.setDevice(1);
    try {
      const mr = new StatisticsResourceAdaptor(new CudaMemoryResource());
      expect(await threadOpsPerSecond(mr, 1, { nbytes: 4096, seconds: 0.05 })).toBeGreaterThan(0);
      expect(mr.allocationCounts.totalCount).toBeGreaterThan(1000);
      expect(mr.allocationCounts.currentBytes).toBe(0);
      mr[Symbol.dispose]();
    } finally {
      cuda.setDevice(0);
    }
  });
});
