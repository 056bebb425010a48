// One StatisticsResourceAdaptor counting for worker threads (through the process-wide registry)
// and native threads at once: no count is lost.
import { getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { Statistics, StatisticsResourceAdaptor, enableStatistics, getStatistics } from '@rmmjs/statistics';
import { nativeThreadsWorkload } from '@rmmjs/test-addon';
import { runWorker } from '@rmmjs/test-helpers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

let base: ReturnType<typeof getCurrentDeviceResource>;
beforeEach(() => {
  base = getCurrentDeviceResource();
});
afterEach(() => {
  setCurrentDeviceResource(base);
});

describe('StatisticsResourceAdaptor and threads', () => {
  it('worker threads see and use the statistics the main thread enabled', async () => {
    enableStatistics();
    const results = await Promise.all(
      [0, 1, 2, 3].map(() => runWorker(new URL('./workers/uses-statistics.js', import.meta.url))),
    );
    expect(results).toEqual([
      [true, true],
      [true, true],
      [true, true],
      [true, true],
    ]);
    const total = 4 * ((250 * 251) / 2);
    const stats = getStatistics()!;
    expect([stats.currentBytes, stats.currentCount, stats.totalBytes, stats.totalCount]).toEqual([0, 0, total, 1000]);
    expect(stats.peakCount).toBeGreaterThanOrEqual(250);
    expect(stats.peakCount).toBeLessThanOrEqual(1000);
  });

  it('push and pop from a worker act on the shared adaptor', async () => {
    enableStatistics();
    const kept = await runWorker(new URL('./workers/push-pop.js', import.meta.url));
    expect(kept).toEqual({ ...new Statistics(40, 1, 40, 1, 40, 1) });
    expect(getStatistics()).toEqual(new Statistics(0, 0, 40, 1, 40, 1));
  });

  it('native threads (no JavaScript): every allocation and free is counted', async () => {
    const mr = new StatisticsResourceAdaptor(getCurrentDeviceResource());
    const result = nativeThreadsWorkload(mr, {
      threads: 4,
      iterations: 20_000,
      minBytes: 100,
      maxBytes: 100,
      maxLive: 8,
    });
    expect(result.errors).toEqual([]);
    const stats = mr.allocationCounts;
    const allocations = result.operations / 2;
    expect([stats.currentBytes, stats.currentCount, stats.totalBytes, stats.totalCount]).toEqual([
      0,
      0,
      allocations * 100,
      allocations,
    ]);
    expect(stats.peakCount).toBeGreaterThanOrEqual(8);
    expect(stats.peakCount).toBeLessThanOrEqual(32);
    expect(stats.peakBytes).toBe(stats.peakCount * 100);
  });
});
