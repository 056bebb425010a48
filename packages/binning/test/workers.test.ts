// One BinningMemoryResource shared by worker threads: a worker gets it from the process-wide
// registry as an adopted wrapper (only the base constructor ran), so everything it shows comes
// from the native object.
import { getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { BinningMemoryResource } from '@rmmjs/binning';
import { FixedSizeMemoryResource } from '@rmmjs/fixed-size';
import { KiB, counting } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';
import { runWorker } from './helpers.js';

describe('BinningMemoryResource in worker threads', () => {
  it('an adopted wrapper: binMrs, addBin and allocations work from the native state', async () => {
    const upstream = counting();
    const mr = new BinningMemoryResource(upstream, { minSizeExponent: 10, maxSizeExponent: 11 });
    const custom = new FixedSizeMemoryResource(upstream, { blockSize: 8 * KiB, blocksToPreallocate: 2 });
    mr.addBin(8 * KiB, custom);
    const previous = setCurrentDeviceResource(mr);
    try {
      const seen = await runWorker(`
        const mr = core.getCurrentDeviceResource();
        const bins = mr.binMrs;
        const before = bins.map((bin) => [bin.constructor.name, bin.getBlockSize()]);
        mr.addBin(${4 * KiB});
        const buffer = new core.DeviceBuffer({ data: new Uint8Array(3000).fill(7) });
        const ok = buffer.toBytes().every((b) => b === 7);
        buffer.free();
        return [mr instanceof binning.BinningMemoryResource, mr.binMrs[0] === bins[0], before,
          mr.binMrs.map((bin) => bin.getBlockSize()), ok];`);
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
          runWorker(`
            const mr = core.getCurrentDeviceResource();
            const stream = new core.Stream();
            const live = [];
            let ok = 0;
            for (let i = 0; i < 400; i++) {
              if (${seed} === 4 && i % 40 === 0) {
                const size = ${24 * KiB} + (i / 40) * ${4 * KiB};
                mr.addBin(size, new fixedSize.FixedSizeMemoryResource(mr.upstreamMr, { blockSize: size, blocksToPreallocate: 2 }));
              }
              const size = i % 10 === 9 ? 100000 + i : 1 + ((i * 7919 + ${seed} * 104729) % 20000);
              const data = new Uint8Array(size).fill((${seed} * 31 + i) & 0xff);
              const onStream = i % 2 === 0 ? stream : undefined;
              live.push([new core.DeviceBuffer({ data, stream: onStream }), data[0], onStream]);
              if (live.length > 16) {
                const [old, value, oldStream] = live.shift();
                if (old.toBytes(oldStream).every((b) => b === value)) ok++;
                old.free();
              }
            }
            for (const [buffer, value, onStream] of live) {
              if (buffer.toBytes(onStream).every((b) => b === value)) ok++;
              buffer.free();
            }
            return ok;`),
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
