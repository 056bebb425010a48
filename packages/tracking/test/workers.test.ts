// One tracker shared by worker threads: exact counts, and the stack of each thread.
import { DeviceBuffer, getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { TrackingResourceAdaptor } from '@rmmjs/tracking';
import { runWorker } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

const workerModule = (name: string) => new URL(`./workers/${name}.js`, import.meta.url);

describe('TrackingResourceAdaptor and worker threads', () => {
  it('four workers allocate and free through one tracker; counts are exact when they finish', async () => {
    const mr = new TrackingResourceAdaptor(getCurrentDeviceResource(), { captureStacks: true });
    const previous = setCurrentDeviceResource(mr);
    try {
      // Workers 1 and 2 import @rmmjs/tracking (JavaScript stacks), 3 and 4 only core (native frames).
      const results: Array<{ kept: Array<[string, number]>; className: string }> = await Promise.all(
        [1, 2, 3, 4].map((n) =>
          runWorker(workerModule('allocates'), { workerData: { worker: n, withTracking: n <= 2 } }),
        ),
      );
      expect(results.map((r) => r.className)).toEqual([
        'TrackingResourceAdaptor',
        'TrackingResourceAdaptor',
        'DeviceMemoryResource',
        'DeviceMemoryResource',
      ]);
      const kept = results.flatMap((r) => r.kept.map(([ptr, nbytes]): [bigint, number] => [BigInt(ptr), nbytes]));
      expect(kept).toHaveLength(400);
      expect(new Set(kept.map(([ptr]) => ptr)).size).toBe(400);
      // sum over workers w and odd j of 1000 + 7w + j
      expect(mr.getAllocatedBytes()).toBe(kept.reduce((sum, [, nbytes]) => sum + nbytes, 0));
      expect(mr.getAllocatedBytes()).toBe(4 * 100 * 1000 + 7 * 100 * (1 + 2 + 3 + 4) + 4 * 10000);
      expect(mr.getOutstandingAllocationCount()).toBe(400);

      const text = mr.getOutstandingAllocationsStr();
      const blocks = text.split('\n\n').filter(Boolean);
      expect(blocks).toHaveLength(400);
      const blockByPtr = new Map(blocks.map((block) => [BigInt(block.slice(0, block.indexOf(':'))), block]));
      results.forEach(({ kept: workerKept }, index) => {
        const worker = index + 1;
        for (const [ptr, nbytes] of workerKept) {
          const block = blockByPtr.get(BigInt(ptr))!;
          expect(block.startsWith(`0x${BigInt(ptr).toString(16)}: ${nbytes} B : callstack:\n#0 in `)).toBe(true);
          if (worker <= 2) {
            expect(block).toContain(`#1 in workerAllocates${worker} `);
          } else {
            expect(block).not.toContain('workerAllocates');
            expect(block).toContain('rmmjs_tracking.node');
          }
        }
      });

      for (const [ptr, nbytes] of kept) mr.deallocate(ptr, nbytes);
      expect(mr.getAllocatedBytes()).toBe(0);
      expect(mr.getOutstandingAllocationsStr()).toBe('');
    } finally {
      setCurrentDeviceResource(previous);
    }
  });

  it('a tracker made in a worker outlives it, with the stacks the worker captured', async () => {
    const previous = getCurrentDeviceResource();
    const ptr = BigInt(await runWorker(workerModule('makes-tracker')));
    try {
      const mr = getCurrentDeviceResource();
      expect(mr).toBeInstanceOf(TrackingResourceAdaptor);
      const tracker = mr as TrackingResourceAdaptor;
      expect(tracker.getAllocatedBytes()).toBe(1234);
      const mine = (function allocatedOnTheMainThread() {
        return tracker.allocate(10);
      })();
      const text = tracker.getOutstandingAllocationsStr();
      expect(text).toContain('allocatedInTheWorker');
      expect(text).toContain('allocatedOnTheMainThread');
      tracker.deallocate(ptr, 1234);
      tracker.deallocate(mine, 10);
      expect(tracker.getOutstandingAllocationsStr()).toBe('');
    } finally {
      setCurrentDeviceResource(previous);
    }
  });

  it('with captureStacks (JavaScript while allocating, none while freeing) its buffers transfer to a worker, which frees them', async () => {
    const mr = new TrackingResourceAdaptor(getCurrentDeviceResource(), { captureStacks: true });
    const tokens = [1000, 3000].map((size) => new DeviceBuffer({ data: new Uint8Array(size).fill(7), mr }).transfer());
    expect(mr.getAllocatedBytes()).toBe(4000);
    const seen = await runWorker(workerModule('frees-transferred'), { workerData: { mr: mr.share(), tokens } });
    expect(seen).toEqual([
      [1000, true, true],
      [3000, true, true],
    ]);
    expect([mr.getAllocatedBytes(), mr.getOutstandingAllocationsStr()]).toEqual([0, '']);
    mr[Symbol.dispose]();
  });
});
