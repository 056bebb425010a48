// One FixedSizeMemoryResource shared by worker threads (the registry is process-wide).
import { getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { FixedSizeMemoryResource } from '@rmmjs/fixed-size';
import { KiB, counting } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';
import { runWorker } from './helpers.js';

describe('FixedSizeMemoryResource in worker threads', () => {
  it('a worker sees the resource as a FixedSizeMemoryResource with its block size and upstream', async () => {
    const upstream = counting();
    const mr = new FixedSizeMemoryResource(upstream, { blockSize: 3000, blocksToPreallocate: 2 });
    const previous = setCurrentDeviceResource(mr);
    try {
      const seen = await runWorker(`
        const mr = core.getCurrentDeviceResource();
        return [mr instanceof fixedSize.FixedSizeMemoryResource, mr.getBlockSize(), mr.upstreamMr.constructor.name,
          core.getCurrentDeviceResourceType() === fixedSize.FixedSizeMemoryResource];`);
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
          runWorker(`
            const streams = [undefined, new core.Stream(), core.PER_THREAD_DEFAULT_STREAM];
            const live = [];
            let ok = 0;
            for (let i = 0; i < 400; i++) {
              const stream = streams[i % 3];
              const data = new Uint8Array(1 + ((i * 37 + ${seed}) % 4096)).fill((${seed} * 31 + i) & 0xff);
              const buffer = new core.DeviceBuffer({ data, stream });
              live.push([buffer, data[0], stream]);
              if (live.length > 12) {
                const [old, value, oldStream] = live.shift();
                if (old.toBytes(oldStream).every((b) => b === value)) ok++;
                old.free();
              }
            }
            for (const [buffer, value, stream] of live) {
              if (buffer.toBytes(stream).every((b) => b === value)) ok++;
              buffer.free();
            }
            return ok;`),
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
