// One BinningMemoryResource shared by worker threads: a worker gets it from the process-wide
// registry as an adopted wrapper (only the base constructor ran), so everything it shows comes
// from the native object.
import { getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { BinningMemoryResource } from '@rmmjs/binning';
import { FixedSizeMemoryResource } from '@rmmjs/fixed-size';
import { KiB, counting, runWorker } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

describe('BinningMemoryResource in worker threads', () => {
  it('an adopted wrapper: binMrs, addBin and allocations work from the native state', async () => {
    const upstream = counting();
    const mr = new BinningMemoryResource(upstream, { minSizeExponent: 10, maxSizeExponent: 11 });
    const custom = new FixedSizeMemoryResource(upstream, { blockSize: 8 * KiB, blocksToPreallocate: 2 });
    mr.addBin(8 * KiB, custom);
    const previous = setCurrentDeviceResource(mr);
    try {
      const seen = await runWorker(new URL('./workers/adopted-wrapper.js', import.meta.url));
      expect(seen).toEqual([
        true,
        true,
        [
          ['FixedSizeMemoryResource', 1024],
          ['FixedSizeMemoryResource', 2048],
          ['FixedSizeMemoryResource', 8192],
        ],
        [1024, 2048, 4096, 8192],
        true,
      ]);
      // the bin the worker added is the main thread's too
      expect(mr.binMrs.map((bin) => (bin as FixedSizeMemoryResource).getBlockSize())).toEqual([1024, 2048, 4096, 8192]);
      expect(mr.binMrs[3]).toBe(custom);
    } finally {
      setCurrentDeviceResource(previous);
    }
    for (const bin of mr.binMrs) bin[Symbol.dispose]();
    mr[Symbol.dispose]();
    expect(upstream.getAllocatedBytes()).toBe(0);
  });

  it('four workers allocate, write and verify across bins and the upstream while one adds bins', async () => {
    const upstream = counting();
    const mr = new BinningMemoryResource(upstream, { minSizeExponent: 9, maxSizeExponent: 12 });
    mr.addBin(20 * KiB);
    const previous = setCurrentDeviceResource(mr);
    try {
      // Bins may only be added for sizes nothing live was allocated with: a deallocation goes to
      // the bin that serves its size now (as RMM). Worker 4 adds bins between 20 KiB and the
      // 100 KiB requests that go to the upstream.
      const results = await Promise.all(
        [1, 2, 3, 4].map((seed) =>
          runWorker(new URL('./workers/bins-churn.js', import.meta.url), { workerData: { seed } }),
        ),
      );
      expect(results).toEqual([400, 400, 400, 400]);
    } finally {
      setCurrentDeviceResource(previous);
    }
    expect(getCurrentDeviceResource()).toBe(previous);
    const bins = mr.binMrs;
    expect(bins.map((bin) => (bin as FixedSizeMemoryResource).getBlockSize())).toEqual([
      512,
      1024,
      2048,
      4096,
      20 * KiB,
      ...Array.from({ length: 10 }, (_, i) => 24 * KiB + i * 4 * KiB),
    ]);
    for (const bin of bins) bin[Symbol.dispose]();
    mr[Symbol.dispose]();
    expect(upstream.getAllocatedBytes()).toBe(0);
  });
});
