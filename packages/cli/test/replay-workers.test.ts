// A log of many threads: the logged threads share at most `workers` worker threads (by default one
// per core), and every event still runs in the log's order.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { getCurrentDeviceResource } from '@rmmjs/core';
import { LoggingResourceAdaptor } from '@rmmjs/logging';
import { StatisticsResourceAdaptor } from '@rmmjs/statistics';
import { backend, counting, fakeCuda, onFake } from '@rmmjs/test-helpers';
import { Action, parseLog, replayLog, replayOn, type AllocationLog } from '@rmmjs/cli';
import { manyThreadsLog, threadedLog } from './logs.js';
import { lines, rmmjs } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'rmmjs-cli-workers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The replayed (allocate or free, size) of each event the log replays, in order. */
function seen(log: AllocationLog) {
  const out: [number, number][] = [];
  for (let i = 0; i < log.events; i++) if (log.slot[i] >= 0) out.push([log.action[i], log.size[i]]);
  return out;
}

/** The column's values of the events the log replays. */
const replayedColumn = (log: AllocationLog, column: Int32Array) => [...column].filter((_, i) => log.slot[i] >= 0);

/**
 * Replays `log` on a LoggingResourceAdaptor over a counting adaptor: what the replay returned, the
 * log the adaptor wrote, and the bytes left allocated.
 */
async function replayLogged(log: AllocationLog, options?: { workers?: number }) {
  const counter = counting();
  const file = join(dir, `replayed-${Math.random().toString(36).slice(2)}.csv`);
  const logged = new LoggingResourceAdaptor(counter, { logFileName: file });
  try {
    const outcome = await replayOn(log, logged, undefined, options);
    logged.flush();
    return { outcome, replayed: parseLog(readFileSync(file, 'utf8'), file), left: counter.getAllocatedBytes() };
  } finally {
    logged[Symbol.dispose]();
    counter[Symbol.dispose]();
  }
}

/** What the replay of `log` must give: its events in order, then a free of each allocation it leaves live. */
function expectTheLogsEvents(log: AllocationLog, replayed: AllocationLog) {
  const events = seen(log);
  expect(seen(replayed).slice(0, events.length)).toEqual(events);
  const bySize = (a: [number, number], b: [number, number]) => a[1] - b[1];
  expect(seen(replayed).slice(events.length).sort(bySize)).toEqual(
    log.live.map(({ size }): [number, number] => [Action.free, size]).sort(bySize),
  );
}

/** The worker thread (the logger's thread id) that replayed each logged thread: one each, and how many there were. */
function workersOf(log: AllocationLog, replayed: AllocationLog): Map<number, number> {
  const logged = replayedColumn(log, log.thread);
  const ran = replayedColumn(replayed, replayed.thread).slice(0, logged.length);
  const workerOf = new Map<number, number>();
  for (const [k, thread] of logged.entries()) {
    if (!workerOf.has(thread)) workerOf.set(thread, ran[k]);
    expect(workerOf.get(thread)).toBe(ran[k]); // each logged thread stays on its worker
  }
  return workerOf;
}

const cores = availableParallelism();

describe(`a log of many threads (${backend()})`, () => {
  const text = manyThreadsLog({ threads: 2000 });

  it('2,000 logged threads replay on one worker thread per core, in the log order, and nothing is left', async () => {
    const log = parseLog(text, 'many.csv');
    expect(log.threads).toHaveLength(2000);
    expect(text.length).toBeGreaterThan(100_000);
    const streams = onFake() ? fakeCuda.stats().liveStreams : 0;
    const before = getCurrentDeviceResource();
    const { outcome, replayed, left } = await replayLogged(log);
    expect(outcome).toMatchObject({ error: null, failures: 0, workers: Math.min(cores, 2000) });
    expectTheLogsEvents(log, replayed);
    const workerOf = workersOf(log, replayed);
    expect(workerOf.size).toBe(2000);
    expect(new Set(workerOf.values()).size).toBe(outcome.workers);
    expect(left).toBe(0);
    expect(getCurrentDeviceResource()).toBe(before);
    if (onFake()) expect(fakeCuda.stats().liveStreams).toBe(streams);
  });

  it('replayLog and rmmjs replay report the worker threads, with the exact peak', async () => {
    const log = parseLog(text, 'many.csv');
    const report = await replayLog(log, { resources: ['pool'], workers: 3 });
    expect(report.workers).toBe(3);
    expect(report.log.threads).toBe(2000);
    expect(report.results[0]).toMatchObject({ error: null, failures: 0, peakRequestedBytes: log.peakBytes });

    const file = join(dir, 'many.csv');
    writeFileSync(file, text);
    const run = rmmjs(['replay', file, '--resources', 'pool', '--json']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const json = JSON.parse(run.stdout);
    expect([json.workers, json.log.threads]).toEqual([Math.min(cores, 2000), 2000]);
    expect(json.results[0]).toMatchObject({ error: null, failures: 0, peakRequestedBytes: log.peakBytes });

    const table = rmmjs(['replay', file, '--resources', 'pool', '--workers', '2']);
    expect(table.status).toBe(0);
    expect(lines(table.stdout)[2]).toBe(
      'replayed on 2 worker threads (--workers): the 2,000 logged threads share them',
    );
  });

  it('workers: n puts each logged thread on one of n worker threads', async () => {
    const log = parseLog(threadedLog({ threads: 7, events: 1500 }), 'seven.csv');
    expect(log.threads).toHaveLength(7);
    const { outcome, replayed, left } = await replayLogged(log, { workers: 3 });
    expect(outcome).toMatchObject({ error: null, failures: 0, workers: 3 });
    expectTheLogsEvents(log, replayed);
    expect(new Set(workersOf(log, replayed).values()).size).toBe(3);
    expect(left).toBe(0);
  });

  it('a log of fewer threads than workers gets one worker thread per logged thread', async () => {
    const log = parseLog(threadedLog({ threads: 2, events: 300 }), 'two.csv');
    const { outcome, replayed } = await replayLogged(log, { workers: 8 });
    expect(outcome.workers).toBe(2);
    expect(new Set(workersOf(log, replayed).values()).size).toBe(2);
  });
});

describe(`the per-thread default stream (${backend()})`, () => {
  // Six threads; the first three allocate on the per-thread default stream (0x2), and the fourth
  // frees there what the third allocated: four use it.
  const log = () => parseLog(manyThreadsLog({ threads: 6, perThreadDefault: 3 }), 'ptds.csv');
  const REFUSED =
    'The argument "log" uses the per-thread default stream on 4 threads, more than the 2 worker threads ' +
    'of the replay, and each of them needs a worker thread of its own (set workers, or --workers, to 4 or more)';

  it('each logged thread that uses it replays on a worker thread of its own', async () => {
    const ptds = log();
    const { outcome, replayed, left } = await replayLogged(ptds, { workers: 4 });
    expect(outcome).toMatchObject({ error: null, failures: 0, workers: 4 });
    expectTheLogsEvents(ptds, replayed);
    const workerOf = workersOf(ptds, replayed);
    expect(new Set([0, 1, 2, 3].map((t) => workerOf.get(t))).size).toBe(4);
    expect(left).toBe(0);
  });

  it('more such threads than workers: refused (ERR_INVALID_ARG_VALUE) before anything runs', async () => {
    using stats = new StatisticsResourceAdaptor(getCurrentDeviceResource());
    const before = getCurrentDeviceResource();
    const streams = onFake() ? fakeCuda.stats().liveStreams : 0;
    for (const call of [
      () => replayOn(log(), stats, undefined, { workers: 2 }),
      () => replayLog(log(), { workers: 2 }),
    ]) {
      const error = (await call().catch((e: unknown) => e)) as Error & { code?: string };
      expect(Object.getPrototypeOf(error)).toBe(TypeError.prototype);
      expect(error.code).toBe('ERR_INVALID_ARG_VALUE');
      expect(error.message).toBe(REFUSED);
    }
    expect(stats.allocationCounts.totalCount).toBe(0);
    expect(getCurrentDeviceResource()).toBe(before);
    if (onFake()) expect(fakeCuda.stats().liveStreams).toBe(streams);
  });

  it('rmmjs replay --workers 2: exit 1 with why; a --workers that is not a count: exit 2', () => {
    const file = join(dir, 'ptds.csv');
    writeFileSync(file, manyThreadsLog({ threads: 6, perThreadDefault: 3 }));
    const run = rmmjs(['replay', file, '--resources', 'pool', '--workers', '2']);
    expect([run.status, run.stdout, run.stderr]).toEqual([1, '', `rmmjs replay: ${REFUSED}\n`]);
    for (const workers of ['0', '1.5', 'two', '257', '-1']) {
      const wrong = rmmjs(['replay', file, `--workers=${workers}`]);
      expect(wrong.status).toBe(2);
      expect(lines(wrong.stderr)[0]).toBe(
        `rmmjs replay: --workers: '${workers}' is not a number of worker threads (1 to 256)`,
      );
    }
  });
});
