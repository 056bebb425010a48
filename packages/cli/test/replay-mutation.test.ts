// A log changed after replayOn or replayLog took it (its columns are shared memory: the caller, or
// another thread, can write them while the replay runs): the replay runs the log as it was checked.
import { describe, expect, it } from 'vitest';
import { getCurrentDeviceResource } from '@rmmjs/core';
import { StatisticsResourceAdaptor } from '@rmmjs/statistics';
import { backend, counting, runWorker } from '@rmmjs/test-helpers';
import { parseLog, replayLog, replayOn, summarizeLog, type AllocationLog } from '@rmmjs/cli';
import { threadedLog } from './logs.js';

const COLUMNS = ['action', 'size', 'time', 'thread', 'stream', 'slot', 'line'] as const;
const columnsOf = (log: AllocationLog) => COLUMNS.map((key) => log[key]);

/** Every column overwritten: threads and streams that do not exist, slots freed twice, sizes of nothing. */
function scramble(log: AllocationLog): void {
  log.action.fill(1);
  log.size.fill(-1);
  log.time.fill(NaN);
  log.thread.fill(log.threads.length + 5);
  log.stream.fill(-3);
  log.slot.fill(0);
  log.line.fill(0);
}

/** `promise`, or a rejection after `ms` (a replay whose workers wait for a turn that never comes). */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not finish in ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const text = threadedLog({ threads: 3, events: 3000, maxLive: 40 });

describe(`a log changed after the call (${backend()})`, () => {
  it('replayOn replays the log as it was checked: the same allocations, frees and peak', async () => {
    const log = parseLog(text, 'changed.csv');
    const expected = { peak: log.peakBytes, total: log.allocations };
    const counter = counting();
    const stats = new StatisticsResourceAdaptor(counter);
    try {
      const pending = replayOn(log, stats);
      scramble(log);
      const outcome = await within(pending, 60_000);
      expect([outcome.error, outcome.failures]).toEqual([null, 0]);
      const counts = stats.allocationCounts;
      expect([counts.peakBytes, counts.totalCount, counts.currentBytes]).toEqual([expected.peak, expected.total, 0]);
      expect(counter.getAllocatedBytes()).toBe(0);
    } finally {
      stats[Symbol.dispose]();
      counter[Symbol.dispose]();
    }
  });

  it('replayLog replays every resource on the log as it was checked', async () => {
    const log = parseLog(text, 'changed.csv');
    const [peak, summary] = [log.peakBytes, summarizeLog(log)];
    const before = getCurrentDeviceResource();
    const pending = replayLog(log, { resources: ['cuda', 'pool'] });
    scramble(log);
    const report = await within(pending, 60_000);
    expect(report.log).toEqual(summary);
    for (const result of report.results) {
      expect(result).toMatchObject({ error: null, failures: 0, peakRequestedBytes: peak });
    }
    expect(getCurrentDeviceResource()).toBe(before);
  });

  it('another thread writing the columns while the replay runs changes nothing', async () => {
    const log = parseLog(text, 'changed.csv');
    const [peak, total] = [log.peakBytes, log.allocations];
    const control = new Int32Array(new SharedArrayBuffer(8));
    const scrambler = runWorker(new URL('./workers/scrambles-log.js', import.meta.url), {
      workerData: { columns: columnsOf(log), control },
    });
    const counter = counting();
    const stats = new StatisticsResourceAdaptor(counter);
    try {
      const pending = replayOn(log, stats);
      Atomics.store(control, 0, 1);
      Atomics.notify(control, 0);
      const outcome = await within(pending, 60_000).finally(() => Atomics.store(control, 1, 1));
      expect(await scrambler).toBeGreaterThan(0);
      expect([outcome.error, outcome.failures]).toEqual([null, 0]);
      const counts = stats.allocationCounts;
      expect([counts.peakBytes, counts.totalCount, counts.currentBytes]).toEqual([peak, total, 0]);
      expect(counter.getAllocatedBytes()).toBe(0);
    } finally {
      Atomics.store(control, 1, 1);
      Atomics.notify(control, 0);
      await scrambler.catch(() => {});
      stats[Symbol.dispose]();
      counter[Symbol.dispose]();
    }
  });
});
