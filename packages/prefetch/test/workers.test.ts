// A prefetch adaptor shared with worker threads (which start with no CUDA context current).
import { cuda, getCurrentDeviceResource, ManagedMemoryResource, setCurrentDeviceResource } from '@rmmjs/core';
import { PrefetchResourceAdaptor } from '@rmmjs/prefetch';
import { runWorker, withCuda } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

describe('PrefetchResourceAdaptor and worker threads', () => {
  it('four workers allocate through one adaptor; every allocation is prefetched', async () => {
    const upstream = withCuda() ? new ManagedMemoryResource() : getCurrentDeviceResource();
    const mr = new PrefetchResourceAdaptor(upstream);
    const previous = setCurrentDeviceResource(mr);
    try {
      const results: Array<{ className: string; kept: Array<[string, number]>; locations: number[] }> =
        await Promise.all([1, 2, 3, 4].map(() => runWorker(new URL('./workers/prefetched.js', import.meta.url))));
      const expected = withCuda() ? mr.device : -2;
      for (const { className, kept, locations } of results) {
        expect(className).toBe('PrefetchResourceAdaptor');
        expect(locations).toEqual(new Array(40).fill(expected));
        expect(kept).toHaveLength(20);
      }
      const kept = results.flatMap((r) => r.kept.map(([ptr, nbytes]) => [BigInt(ptr), nbytes] as const));
      expect(new Set(kept.map(([ptr]) => ptr)).size).toBe(80);
      for (const [ptr, nbytes] of kept) {
        expect(cuda.lastPrefetchLocation(ptr, nbytes)).toBe(expected);
        mr.deallocate(ptr, nbytes);
      }
    } finally {
      setCurrentDeviceResource(previous);
    }
  });
});
