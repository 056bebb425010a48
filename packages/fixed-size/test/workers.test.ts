// One FixedSizeMemoryResource shared by worker threads (the registry is process-wide).
import { getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { FixedSizeMemoryResource } from '@rmmjs/fixed-size';
import { KiB, counting, runWorker } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

describe('FixedSizeMemoryResource in worker threads', () => {
  it('a worker sees the resource as a FixedSizeMemoryResource with its block size and upstream', async () => {
    const upstream = counting();
    const mr = new FixedSizeMemoryResource(upstream, { blockSize: 3000, blocksToPreallocate: 2 });
    const previous = setCurrentDeviceResource(mr);
    try {
      const seen = await runWorker(new URL('./workers/sees-class.js', import.meta.url));
      expect(seen).toEqual([true, 3072, 'DeviceMemoryResource', true]);
    } finally {
      setCurrentDeviceResource(previous);
      mr[Symbol.dispose]();
    }
    expect(upstream.getAllocatedBytes()).toBe(0);
  });

  it('four workers allocate, write, verify and free through one resource at once; it grows as needed', async () => {
    const upstream = counting();
    const mr = new FixedSizeMemoryResource(upstream, { blockSize: 4 * KiB, blocksToPreallocate: 8 });
    const previous = setCurrentDeviceResource(mr);
    try {
      const results = await Promise.all(
        [1, 2, 3, 4].map((seed) =>
          runWorker(new URL('./workers/blocks-churn.js', import.meta.url), { workerData: { seed } }),
        ),
      );
      expect(results).toEqual([400, 400, 400, 400]);
    } finally {
      setCurrentDeviceResource(previous);
    }
    // 4 workers x 13 live buffers at most: the pool grew past its first 8 blocks, in whole chunks
    const grown = upstream.getAllocatedBytes();
    expect(grown % (32 * KiB)).toBe(0);
    expect(grown).toBeGreaterThan(32 * KiB);
    expect(grown).toBeLessThanOrEqual(52 * 4 * KiB + 4 * 32 * KiB);
    expect(getCurrentDeviceResource()).toBe(previous);
    mr[Symbol.dispose]();
    expect(upstream.getAllocatedBytes()).toBe(0);
  });
});
