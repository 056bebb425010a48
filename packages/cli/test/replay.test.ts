// `rmmjs replay`: a log replayed against each allocator, one worker per logged thread, in order.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CudaMemoryResource, cuda, getCurrentDeviceResource, getPerDeviceResource } from '@rmmjs/core';
import { StatisticsResourceAdaptor } from '@rmmjs/statistics';
import { LoggingResourceAdaptor } from '@rmmjs/logging';
import { PoolMemoryResource } from '@rmmjs/pool';
import { backend, counting, fakeCuda, KiB, MiB, onFake, onHost, withCuda } from '@rmmjs/test-helpers';
import { Action, parseLog, replayLog, replayOn, summarizeLog, type AllocationLog, type ReplayResult } from '@rmmjs/cli';
import { HEADER, clock, threadedLog } from './logs.js';
import { fixture, lines, rmmjs } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'rmmjs-cli-replay-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const goldenText = readFileSync(fixture('rmm-cpp.csv'), 'utf8');
const golden = () => parseLog(goldenText, 'rmm-cpp.csv');
const baseClass = withCuda() ? 'CudaMemoryResource' : 'SystemMemoryResource';

const GOLDEN_SUMMARY = {
  source: 'rmm-cpp.csv',
  events: 11,
  allocations: 6,
  frees: 4,
  loggedFailures: 1,
  threads: 3,
  streams: 3,
  peakBytes: 2000256,
  largestAllocation: 2000000,
  leaked: { count: 2, bytes: 768 },
};

/** The allocations and frees a resource saw, from the log a LoggingResourceAdaptor wrote. */
function seen(log: AllocationLog) {
  const out: [number, number][] = [];
  for (let i = 0; i < log.events; i++) if (log.slot[i] >= 0) out.push([log.action[i], log.size[i]]);
  return out;
}

/** Each of `from`'s values maps to one of `to`'s, and different ones to different ones. */
function expectOneToOne(from: ArrayLike<number>, to: ArrayLike<number>) {
  const forward = new Map<number, number>();
  for (let i = 0; i < from.length; i++) {
    if (!forward.has(from[i])) forward.set(from[i], to[i]);
    expect(forward.get(from[i])).toBe(to[i]);
  }
  expect(new Set(forward.values()).size).toBe(forward.size);
}

describe(`replayLog (${backend()})`, () => {
  it('replays the golden log against each resource with exact counts', async () => {
    const progress = new Map<string, [number, number]>();
    const report = await replayLog(golden(), {
      resources: ['cuda', 'pool', 'arena', 'fixed-size', 'async'],
      onProgress: (resource, done, total) => progress.set(resource, [done, total]),
    });
    expect(report.log).toEqual(GOLDEN_SUMMARY);
    expect(report.size).toBeNull();
    const [cuda, pool, arena, fixed, async] = report.results;
    const ran = (r: ReplayResult, className: string) => {
      expect([r.className, r.skipped, r.error, r.failures, r.peakRequestedBytes]).toEqual([
        className,
        null,
        null,
        0,
        2000256,
      ]);
      expect(r.timeMs).toBeGreaterThan(0);
      expect(r.allocatorMs).toBeGreaterThan(0);
      expect(r.allocatorMs!).toBeLessThanOrEqual(r.timeMs! * 3); // three threads at most at once
      expect(progress.get(r.resource)).toEqual([11, 11]);
    };
    ran(cuda, baseClass);
    expect([cuda.peakHeldBytes, cuda.fragmentation]).toEqual([null, null]);
    ran(pool, 'PoolMemoryResource');
    expect(pool.peakHeldBytes).toBeGreaterThanOrEqual(2000256);
    expect(pool.fragmentation).toBe(1 - 2000256 / pool.peakHeldBytes!);
    ran(arena, 'ArenaMemoryResource');
    expect(arena.peakHeldBytes).toBeGreaterThanOrEqual(2000256);
    expect(fixed).toMatchObject({
      className: null,
      skipped: 'allocations of up to 1.9 MiB exceed its 1 MiB blocks',
      timeMs: null,
      peakRequestedBytes: null,
    });
    if (onHost()) expect(async).toMatchObject({ className: null, skipped: 'needs a GPU (host mode)' });
    else ran(async, 'CudaAsyncMemoryResource');
    expect(getCurrentDeviceResource().constructor.name).toBe(baseClass);
  });

  it('--size bounds the upstream: an allocation past it fails, is counted, and its free is skipped', async () => {
    const log = parseLog(
      [
        HEADER,
        `1,${clock(0)},allocate,0x1000000,${600 * KiB},0`,
        `2,${clock(1)},allocate,0x2000000,${600 * KiB},0`,
        `1,${clock(2)},free,0x2000000,${600 * KiB},0`,
        `2,${clock(3)},free,0x1000000,${600 * KiB},0`,
        `1,${clock(4)},allocate,0x1000000,${900 * KiB},0`,
        `2,${clock(5)},free,0x1000000,${900 * KiB},0`,
        '',
      ].join('\n'),
    );
    const report = await replayLog(log, { resources: ['cuda', 'pool'], size: MiB });
    expect(report.size).toBe(MiB);
    const [cuda, pool] = report.results;
    expect([cuda.error, cuda.failures, cuda.peakRequestedBytes]).toEqual([null, 1, 900 * KiB]);
    // At its maximum, the pool gives its wholly free 600 KiB block back to grow by 900 KiB.
    expect([pool.error, pool.failures, pool.peakRequestedBytes, pool.peakHeldBytes]).toEqual([
      null,
      1,
      900 * KiB,
      900 * KiB,
    ]);
  });

  it('a resource that cannot be built within --size says so', async () => {
    const report = await replayLog(golden(), { resources: ['arena'], size: 64 * KiB });
    expect(report.results[0].error).toMatch(/^could not be built: /);
    expect(report.results[0].timeMs).toBeNull();
  });

  it('a log without rows replays in no time', async () => {
    const report = await replayLog(parseLog(`${HEADER}\n`), { resources: ['pool'] });
    expect(report.results[0]).toMatchObject({ error: null, timeMs: 0, failures: 0, peakRequestedBytes: 0 });
  });
});

describe(`replayOn (${backend()})`, () => {
  it('keeps the log order across worker threads: a LoggingResourceAdaptor sees the same events', async () => {
    const log = parseLog(threadedLog({ threads: 4, events: 4000 }), 'threaded.csv');
    expect(log.threads).toHaveLength(4);
    const counter = counting();
    const file = join(dir, 'replayed.csv');
    const logged = new LoggingResourceAdaptor(counter, { logFileName: file });
    const outcome = await replayOn(log, logged, undefined, { workers: 4 });
    expect([outcome.error, outcome.failures, outcome.workers]).toEqual([null, 0, 4]);
    expect(counter.getAllocatedBytes()).toBe(0); // what the log leaves live is freed after
    logged.flush();
    const replayed = parseLog(readFileSync(file, 'utf8'), file);
    logged[Symbol.dispose]();
    counter[Symbol.dispose]();
    const leaked = log.live.map(({ size }) => [Action.free, size]);
    expect(seen(replayed)).toEqual([...seen(log), ...leaked.map(() => expect.anything())]);
    expect(
      seen(replayed)
        .slice(seen(log).length)
        .map(([, size]) => size)
        .sort(),
    ).toEqual(log.live.map(({ size }) => size).sort());
    // With as many workers as threads, each logged thread ran on a thread of its own; each logged
    // stream became a stream of its own.
    const n = seen(log).length;
    const of = (l: AllocationLog, column: Int32Array) => [...column].filter((_, i) => l.slot[i] >= 0);
    expect(replayed.threads.length).toBeGreaterThanOrEqual(4);
    expectOneToOne(of(log, log.thread), of(replayed, replayed.thread).slice(0, n));
    expectOneToOne(of(log, log.stream), of(replayed, replayed.stream).slice(0, n));
    // The default stream stays the default stream; the other one is replayed on a stream of our own.
    const firstOf = (l: AllocationLog, handle: bigint) => l.stream.indexOf(l.streams.indexOf(handle));
    expect(log.streams).toEqual([0x5a5a00n, 0n]);
    expect(replayed.streams[replayed.stream[firstOf(log, 0n)]]).toBe(0n);
    expect(replayed.streams[replayed.stream[firstOf(log, 0x5a5a00n)]]).toBeGreaterThan(2n);
  });

  it('frees across threads: allocations of one thread freed by another', async () => {
    const log = parseLog(threadedLog({ threads: 2, events: 600, maxLive: 5, seed: 11 }));
    let crossed = 0;
    const allocatedBy = new Map<number, number>();
    for (let i = 0; i < log.events; i++) {
      if (log.action[i] === Action.allocate) allocatedBy.set(log.slot[i], log.thread[i]);
      else if (allocatedBy.get(log.slot[i]) !== log.thread[i]) crossed++;
    }
    expect(crossed).toBeGreaterThan(50);
    const counter = counting();
    const pool = new PoolMemoryResource(counter, { initialPoolSize: 0 });
    const outcome = await replayOn(log, pool);
    expect([outcome.error, outcome.failures]).toEqual([null, 0]);
    pool[Symbol.dispose]();
    expect(counter.getAllocatedBytes()).toBe(0);
    counter[Symbol.dispose]();
  });

  it('refuses what is not a resource (ERR_INVALID_ARG_TYPE) before it makes a stream for the log', async () => {
    const log = parseLog(
      `${HEADER}\n1,00:00:00.000001,allocate,0x100,256,0x55\n1,00:00:00.000002,free,0x100,256,0x55\n`,
    );
    const streams = onFake() ? fakeCuda.stats().liveStreams : 0;
    const current = getCurrentDeviceResource();
    const error = (await replayOn(log, {} as never).catch((e: unknown) => e)) as Error & { code?: string };
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
    if (onFake()) expect(fakeCuda.stats().liveStreams).toBe(streams); // none waits for the collector
    expect(getCurrentDeviceResource()).toBe(current);
  });

  it.runIf(onFake())("replays on the resource given when this thread's current device is not 0", async () => {
    // Worker threads start on device 0: they must get the resource itself, not their current one.
    const log = parseLog(threadedLog({ threads: 2, events: 200 }), 'threaded.csv');
    cuda.setDevice(1);
    try {
      const mr = new StatisticsResourceAdaptor(new CudaMemoryResource());
      const outcome = await replayOn(log, mr);
      expect([outcome.error, outcome.failures]).toEqual([null, 0]);
      expect(mr.allocationCounts.peakBytes).toBe(log.peakBytes);
      expect(mr.allocationCounts.totalCount).toBe(log.allocations);
      mr[Symbol.dispose]();
      const report = await replayLog(log, { resources: ['pool'] });
      expect(report.results[0].peakRequestedBytes).toBe(log.peakBytes);
    } finally {
      cuda.setDevice(0);
    }
  });

  it.runIf(onFake())('a CUDA failure stops every thread, names the line, and frees what was allocated', async () => {
    const log = parseLog(threadedLog({ threads: 3, events: 400 }), 'threaded.csv');
    const mr = new CudaMemoryResource();
    const before = fakeCuda.stats().liveAllocations;
    const allocations = [...log.action.keys()].filter((i) => log.action[i] === Action.allocate);
    fakeCuda.failNext('cuMemAlloc_v2', 40, 'CUDA_ERROR_ILLEGAL_ADDRESS');
    const outcome = await replayOn(log, mr);
    expect(outcome.timeMs).toBeNull();
    expect(outcome.error).toMatch(new RegExp(`^line ${log.line[allocations[39]]}: .*CUDA_ERROR_ILLEGAL_ADDRESS`));
    expect(fakeCuda.stats().liveAllocations).toBe(before);
    mr[Symbol.dispose]();
  });
});

describe(`rmmjs replay (${backend()})`, () => {
  it('prints the log, a row per resource and the skipped ones with why', () => {
    const run = rmmjs(['replay', fixture('rmm-cpp.csv'), '--resources', 'cuda,pool,fixed-size']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const out = lines(run.stdout);
    expect(out.slice(0, 5)).toEqual([
      `log ${fixture('rmm-cpp.csv')}: 11 rows, 6 allocations, 4 frees, 1 allocate failure (not replayed); 3 threads, 3 streams`,
      'peak in use 1.9 MiB, largest allocation 1.9 MiB; 2 allocations of 768 B never freed (freed after the replay)',
      availableParallelism() >= 3
        ? 'replayed on 3 worker threads, one per logged thread'
        : `replayed on ${availableParallelism()} worker threads (--workers): the 3 logged threads share them`,
      'upstream: not bounded',
      '',
    ]);
    expect(out.splice(2, 1)).toHaveLength(1);
    expect(out[4].split(/ {2,}/)).toEqual([
      'resource',
      'allocator',
      'time',
      'in allocator',
      'peak requested',
      'peak held',
      'fragmentation',
      'failed allocations',
    ]);
    expect(out[5]).toMatch(new RegExp(`^cuda +${baseClass} +\\d+\\.\\d{3} ms +\\d+\\.\\d{3} ms +1\\.9 MiB +- +- +0$`));
    expect(out[6]).toMatch(
      /^pool +PoolMemoryResource +\d+\.\d{3} ms +\d+\.\d{3} ms +1\.9 MiB +\d+(\.\d)? [KM]iB +\d+\.\d% +0$/,
    );
    expect(out[7]).toBe('fixed-size: skipped: allocations of up to 1.9 MiB exceed its 1 MiB blocks');
    expect(out[8]).toBe('');
    expect(out.slice(9).join(' ')).toMatch(/^time: first event to last.*their frees are skipped\)\.$/);
  });

  it('--json prints the report', () => {
    const run = rmmjs(['replay', fixture('rmm-cpp.csv'), '--resources', 'pool', '--size', '64MiB', '--json']);
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.log).toEqual({ ...GOLDEN_SUMMARY, source: fixture('rmm-cpp.csv') });
    expect(report.size).toBe(64 * MiB);
    expect(report.workers).toBe(Math.min(3, availableParallelism()));
    expect(report.results).toHaveLength(1);
    expect(report.results[0]).toMatchObject({
      resource: 'pool',
      className: 'PoolMemoryResource',
      failures: 0,
      peakRequestedBytes: 2000256,
    });
  });

  it('replays the log a LoggingResourceAdaptor wrote in this process (rmmjs reads its own logs)', () => {
    const file = join(dir, 'own.csv');
    writeFileSync(file, threadedLog({ threads: 2, events: 200 }));
    const log = parseLog(readFileSync(file, 'utf8'), file);
    const run = rmmjs(['replay', file, '--resources', 'pool', '--json']);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout).log).toEqual(summarizeLog(log));
  });

  it.each([
    [
      ['--resources', 'pool,nope'],
      "rmmjs replay: --resources: unknown resource 'nope' (choose from cuda, managed, async, pool, arena, binning, fixed-size)",
    ],
    [['--size', 'lots'], "rmmjs replay: --size: cannot read 'lots' as a size (for example 4GiB, 512MiB, 1000000000)"],
    [['--size', '0'], 'rmmjs replay: --size: must be more than 0 bytes'],
  ])('%j: exit 2 with the usage', (args, message) => {
    const run = rmmjs(['replay', fixture('rmm-cpp.csv'), ...args]);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(lines(run.stderr)[0]).toBe(message);
    expect(run.stderr).toContain('Usage: rmmjs replay');
  });

  it('a bad row: exit 1 with the file and line', () => {
    const file = join(dir, 'bad.csv');
    writeFileSync(file, `${HEADER}\n1,10:00:00.000001,allocate,0x100,10,0\n1,10:00:00.000002,free,0x200,10,0\n`);
    const run = rmmjs(['replay', file]);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`rmmjs replay: ${file}:3: free of 0x200 (10 bytes) that no earlier row allocates\n`);
  });

  it('a file that does not exist: exit 1', () => {
    const run = rmmjs(['replay', join(dir, 'missing.csv')]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^rmmjs replay: ENOENT: no such file or directory/);
  });
});

describe(`replayOn's progress callback (${backend()})`, () => {
  it('one that throws stops the replay: replayOn rejects with its error, nothing stays allocated', async () => {
    // Long enough that the callback is usually called by the timer, while the workers run (else
    // by the last call, after them): either way the same error, and nothing left allocated.
    using stats = new StatisticsResourceAdaptor(getCurrentDeviceResource());
    const before = getCurrentDeviceResource();
    const stop = new Error('stop');
    let calls = 0;
    const log = parseLog(threadedLog({ threads: 4, events: 20000 }), 'long.csv');
    const onProgress = () => {
      calls++;
      throw stop;
    };
    await expect(replayOn(log, stats, onProgress)).rejects.toBe(stop);
    expect(calls).toBe(1);
    expect(stats.allocationCounts.currentBytes).toBe(0);
    expect(getCurrentDeviceResource()).toBe(before);
  });
});

describe.runIf(withCuda() && cuda.getDeviceCount() >= 2)('replayOn a resource of another device', () => {
  it("replays on the resource's device, and puts back that device's resource", async () => {
    cuda.setDevice(1);
    let base: CudaMemoryResource;
    let pool: PoolMemoryResource;
    let before: ReturnType<typeof getCurrentDeviceResource>;
    try {
      base = new CudaMemoryResource();
      pool = new PoolMemoryResource(base, { initialPoolSize: 0 });
      before = getCurrentDeviceResource();
    } finally {
      cuda.setDevice(0);
    }
    const zero = getCurrentDeviceResource();
    const log = parseLog(
      `${HEADER}\n1,00:00:00.000001,allocate,0x100,256,0x55\n1,00:00:00.000002,free,0x100,256,0x55\n`,
    );
    const outcome = await replayOn(log, pool);
    expect(outcome.error).toBe(null);
    expect(cuda.getDevice()).toBe(0);
    expect(getCurrentDeviceResource()).toBe(zero);
    expect(getPerDeviceResource(1)).toBe(before);
    pool[Symbol.dispose]();
    base[Symbol.dispose]();
  });
});
