import {
  CudaMemoryResource,
  DeviceBuffer,
  type DeviceMemoryResource,
  OutOfMemoryError,
  RMMError,
  Stream,
  getCurrentDeviceResource,
  getCurrentDeviceResourceType,
  setCurrentDeviceResource,
} from '@rmmjs/core';
import { BinningMemoryResource } from '@rmmjs/binning';
import { FixedSizeMemoryResource } from '@rmmjs/fixed-size';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { KiB, MiB, arrayTester, counting, itemSizes } from '@rmmjs/test-helpers';
import { expectBytes, fakeCuda, onFake, pattern, random, thrown, withCuda } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';
import { availableUpstreams } from './helpers.js';

const base = () => getCurrentDeviceResource();
const blockSizes = (mr: BinningMemoryResource) =>
  mr.binMrs.map((bin) => (bin instanceof FixedSizeMemoryResource ? bin.getBlockSize() : bin.constructor.name));
/** Identity, element by element (toEqual would compare the objects' shapes). */
function expectSame(actual: unknown[], expected: unknown[]): void {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((value, i) => expect(value).toBe(expected[i]));
}
/** 128 blocks (RMM's default) of each size. */
const preallocated = (...sizes: number[]) => sizes.reduce((sum, size) => sum + 128 * size, 0);

describe.each(availableUpstreams())('BinningMemoryResource over $name', ({ make }) => {
  it('RMM test: bins 2^10..2^17, an explicit 1 KiB bin (the first is kept) and a 128 MiB CUDA bin', () => {
    const upstream = make();
    const mr = new BinningMemoryResource(upstream, { minSizeExponent: 10, maxSizeExponent: 17 });
    const fixed = new FixedSizeMemoryResource(upstream, { blockSize: 1 << 10 });
    const large = withCuda() ? new CudaMemoryResource() : base();
    mr.addBin(1 << 10, fixed);
    mr.addBin(1 << 27, large);
    expect(blockSizes(mr)).toEqual([...[1, 2, 4, 8, 16, 32, 64, 128].map((k) => k * KiB), large.constructor.name]);
    expect(mr.binMrs[0]).not.toBe(fixed);
    expect(mr.binMrs[8]).toBe(large);
    const previous = setCurrentDeviceResource(mr);
    try {
      expect(getCurrentDeviceResourceType()).toBe(BinningMemoryResource);
      let seed = 0;
      for (const itemSize of itemSizes) {
        for (const nelem of [128, 256, 512, 1024, 4096, 16384]) arrayTester(itemSize * nelem, ++seed);
      }
      // RMM allocates 128 MiB twice here; the fake driver has 256 MiB in all.
      arrayTester(onFake() ? 48 * MiB : 128 * MiB, 99);
    } finally {
      setCurrentDeviceResource(previous);
      mr[Symbol.dispose]();
      fixed[Symbol.dispose]();
    }
  });

  it('RMM mr_ref tests: allocations are different and aligned; random and mixed allocate/free sequences', () => {
    // RMM uses bins 2^18..2^22 (992 MiB preallocated); 2^12..2^16 keeps the fake driver's budget.
    const mr = new BinningMemoryResource(make(), { minSizeExponent: 12, maxSizeExponent: 16 });
    const [a, b] = [mr.allocate(8), mr.allocate(8)];
    expect(a).not.toBe(b);
    mr.deallocate(a, 8);
    mr.deallocate(b, 8);
    for (const size of [4, KiB, MiB]) {
      const ptr = mr.allocate(size);
      expect(ptr % 256n).toBe(0n);
      mr.deallocate(ptr, size);
    }
    const next = random(1);
    const maxSize = 256 * KiB;
    const allocations = Array.from({ length: 100 }, () => {
      const size = 1 + Math.floor(next() * maxSize);
      const ptr = mr.allocate(size);
      expect(ptr % 256n).toBe(0n);
      return { ptr, size };
    });
    expect(new Set(allocations.map(({ ptr }) => ptr)).size).toBe(100);
    for (const { ptr, size } of allocations) mr.deallocate(ptr, size);
    // test_mixed_random_allocation_free: 53% allocations, at most 100, all freed in the end
    const live: { ptr: bigint; size: number }[] = [];
    let count = 0;
    for (let i = 0; i < 200; i++) {
      const allocate = live.length === 0 || (next() * 100 < 53 && count < 100);
      if (allocate) {
        const size = 1 + Math.floor(next() * maxSize);
        live.push({ ptr: mr.allocate(size), size });
        count++;
      } else {
        const [{ ptr, size }] = live.splice(Math.floor(next() * live.length), 1);
        mr.deallocate(ptr, size);
      }
    }
    for (const { ptr, size } of live) mr.deallocate(ptr, size);
    mr[Symbol.dispose]();
  });

  it('a seeded random workload over bins and the upstream: byte patterns survive, nothing overlaps', () => {
    const mr = new BinningMemoryResource(make(), { minSizeExponent: 8, maxSizeExponent: 12 });
    mr.addBin(6000, new FixedSizeMemoryResource(make(), { blockSize: 6000, blocksToPreallocate: 4 }));
    const next = random(3);
    const live: { buffer: DeviceBuffer; seed: number }[] = [];
    for (let step = 0; step < 800; step++) {
      if (live.length > 0 && (live.length >= 80 || next() < 0.45)) {
        const at = Math.floor(next() * live.length);
        const { buffer, seed } = live[at];
        expectBytes(buffer.toBytes(), pattern(buffer.size, seed));
        buffer.free();
        live[at] = live[live.length - 1];
        live.pop();
      } else {
        const size = 1 + Math.floor(next() ** 2 * 10_000);
        live.push({ buffer: new DeviceBuffer({ data: pattern(size, step), mr }), seed: step });
      }
    }
    const ranges = live
      .map(({ buffer }) => [buffer.ptr, buffer.ptr + BigInt(buffer.size)])
      .sort((x, y) => (x[0] < y[0] ? -1 : 1));
    for (let i = 1; i < ranges.length; i++) expect(ranges[i][0] >= ranges[i - 1][1]).toBe(true);
    for (const { buffer, seed } of live) {
      expectBytes(buffer.toBytes(), pattern(buffer.size, seed));
      buffer.free();
    }
    mr[Symbol.dispose]();
  });
});

describe('BinningMemoryResource', () => {
  it('RMM test: without bins every request goes to the upstream, zero bytes to nobody', () => {
    const upstream = counting();
    const mr = new BinningMemoryResource(upstream);
    expect(mr.binMrs).toEqual([]);
    expect(mr.upstreamMr).toBe(upstream);
    expect(mr.getUpstream()).toBe(upstream);
    const ptr = mr.allocate(1000);
    expect(upstream.getAllocatedBytes()).toBe(1024);
    mr.deallocate(ptr, 1000);
    expect(upstream.getAllocatedBytes()).toBe(0);
    expect(mr.allocate(0)).toBe(0n);
    mr.deallocate(0n, 0);
    mr[Symbol.dispose]();
  });

  it('exponents make FixedSizeMemoryResource bins of 2^min..2^max bytes over the upstream', () => {
    const upstream = counting();
    const mr = new BinningMemoryResource(upstream, { minSizeExponent: 10, maxSizeExponent: 12 });
    const bins = mr.binMrs;
    expect(blockSizes(mr)).toEqual([1024, 2048, 4096]);
    expectSame(mr.binMrs, bins);
    expect(mr.binMrs.every((bin) => bin instanceof FixedSizeMemoryResource)).toBe(true);
    expect(mr.binMrs.every((bin) => (bin as FixedSizeMemoryResource).upstreamMr === upstream)).toBe(true);
    expect(upstream.getAllocatedBytes()).toBe(preallocated(1024, 2048, 4096));
    mr[Symbol.dispose]();
    // the wrappers binMrs gave hold references of their own (one wrapper per bin)
    expect(upstream.getAllocatedBytes()).toBe(preallocated(1024, 2048, 4096));
    for (const bin of bins) bin[Symbol.dispose]();
    expect(upstream.getAllocatedBytes()).toBe(0);
  });

  it('exponents: sizes below 256 align up to one 256-byte bin (the first of a size is kept)', () => {
    const mr = new BinningMemoryResource(base(), { minSizeExponent: 0, maxSizeExponent: 9 });
    expect(blockSizes(mr)).toEqual([256, 512]);
    mr[Symbol.dispose]();
  });

  it.each([
    [undefined, undefined],
    [-1, -1],
    [5, -1],
    [-1, 5],
    [-100, -1],
    [12, 10],
  ])('exponents %s and %s: no bins (as RMM)', (minSizeExponent, maxSizeExponent) => {
    const mr = new BinningMemoryResource(base(), { minSizeExponent, maxSizeExponent });
    expect(mr.binMrs).toEqual([]);
    mr[Symbol.dispose]();
  });

  it('a request goes to the smallest bin that fits it, else to the upstream; a free goes where its size went', () => {
    const upstream = counting();
    const small = counting(base());
    const large = counting(base());
    const mr = new BinningMemoryResource(upstream);
    mr.addBin(4096, large);
    mr.addBin(1000, small); // aligned up to 1024
    expectSame(mr.binMrs, [small, large]);
    const served = (size: number) => {
      const before = [small, large, upstream].map((r) => r.getAllocatedBytes());
      const ptr = mr.allocate(size);
      const after = [small, large, upstream].map((r) => r.getAllocatedBytes());
      mr.deallocate(ptr, size);
      expect([small, large, upstream].map((r) => r.getAllocatedBytes())).toEqual(before);
      return ['small', 'large', 'upstream'][after.findIndex((bytes, i) => bytes !== before[i])];
    };
    expect([1, 1000, 1024, 1025, 4095, 4096, 4097, 1 << 20].map(served)).toEqual([
      'small',
      'small',
      'small',
      'large',
      'large',
      'large',
      'upstream',
      'upstream',
    ]);
  });

  it('addBin on an existing size (after alignment) keeps the first bin, with or without a resource', () => {
    const upstream = counting();
    const mr = new BinningMemoryResource(upstream);
    const first = counting(base());
    const second = counting(base());
    mr.addBin(2048, first);
    mr.addBin(2048, second);
    mr.addBin(2000, second);
    mr.addBin(1800);
    expectSame(mr.binMrs, [first]);
    expect(upstream.getAllocatedBytes()).toBe(0); // no FixedSizeMemoryResource was made
    mr.addBin(512);
    mr.addBin(300, first);
    expect(blockSizes(mr)).toEqual([512, 'CountingResourceAdaptor']);
    expect(mr.binMrs[1]).toBe(first);
    expect(upstream.getAllocatedBytes()).toBe(preallocated(512));
    for (const bin of mr.binMrs) bin[Symbol.dispose]();
    mr[Symbol.dispose]();
    expect(upstream.getAllocatedBytes()).toBe(0);
  });

  it('binMrs: the same objects, smallest bin first, also after the caller let go of them', () => {
    const mr = new BinningMemoryResource(base(), { minSizeExponent: 11, maxSizeExponent: 11 });
    const custom = new FixedSizeMemoryResource(base(), { blockSize: 8 * KiB, blocksToPreallocate: 2 });
    const other = counting();
    mr.addBin(64 * KiB, other);
    mr.addBin(8 * KiB, custom);
    const bins = mr.binMrs;
    expect(bins).toHaveLength(3);
    expect(bins[1]).toBe(custom);
    expect(bins[2]).toBe(other);
    expect(mr.binMrs[0]).toBe(bins[0]);
    custom[Symbol.dispose]();
    const again = mr.binMrs[1];
    expect(again).not.toBe(custom);
    expect(again).toBeInstanceOf(FixedSizeMemoryResource);
    expect((again as FixedSizeMemoryResource).getBlockSize()).toBe(8 * KiB);
    const buffer = new DeviceBuffer({ data: pattern(5000, 1), mr });
    expectBytes(buffer.toBytes(), pattern(5000, 1));
    buffer.free();
    mr[Symbol.dispose]();
  });

  it('keeps bins and upstream alive until the last user lets go, then every bin returns its memory', () => {
    const upstream = counting();
    const binUpstream = counting();
    let mr: BinningMemoryResource | undefined = new BinningMemoryResource(upstream, {
      minSizeExponent: 9,
      maxSizeExponent: 10,
    });
    const custom = new FixedSizeMemoryResource(binUpstream, { blockSize: 4 * KiB, blocksToPreallocate: 2 });
    mr.addBin(4 * KiB, custom);
    custom[Symbol.dispose]();
    const buffers = [300, 1000, 4000, 9000].map((size, i) => new DeviceBuffer({ data: pattern(size, i), mr }));
    expect(upstream.getAllocatedBytes()).toBe(preallocated(512, 1024) + 9216);
    expect(binUpstream.getAllocatedBytes()).toBe(8 * KiB);
    mr[Symbol.dispose]();
    mr = undefined;
    buffers.forEach((buffer, i) => expectBytes(buffer.toBytes(), pattern(buffer.size, i)));
    for (const buffer of buffers) buffer.free();
    expect(upstream.getAllocatedBytes()).toBe(0);
    expect(binUpstream.getAllocatedBytes()).toBe(0);
  });

  it('passes the stream to the bin: a FixedSizeMemoryResource bin reuses a block freed on that stream', () => {
    const mr = new BinningMemoryResource(base(), { minSizeExponent: 10, maxSizeExponent: 10 });
    using stream = new Stream();
    const ptr = mr.allocate(1000, stream);
    mr.deallocate(ptr, 1000, stream);
    expect(mr.allocate(900, stream)).toBe(ptr);
    mr.deallocate(ptr, 900, stream);
    mr[Symbol.dispose]();
  });

  it('a free with another size is refused (RMMError), the block stays handed out; the right size works', () => {
    const mr = new BinningMemoryResource(base(), { minSizeExponent: 10, maxSizeExponent: 12 });
    const ptr = mr.allocate(1000);
    const error = thrown(() => mr.deallocate(ptr, 3000));
    expect(error).toBeInstanceOf(RMMError);
    expect(error.code).toBe('ERR_RMM_LOGIC');
    expect(error.message).toBe(
      `BinningMemoryResource: cannot deallocate 3000 bytes at 0x${ptr.toString(16)}: it was allocated with another size`,
    );
    mr.deallocate(ptr, 1000);
    mr[Symbol.dispose]();
  });

  // RMM sends a free where an allocation of its size would go now: to a bin added since, which
  // refuses memory it never served (found by the fuzzer in tooling/fuzz: the memory could never be
  // returned through the resource that handed it out). Here it goes back where it came from.
  it('a bin added while allocations of its sizes are live: their frees go back to the upstream that served them', () => {
    const upstream = counting();
    const mr = new BinningMemoryResource(upstream);
    const ptr = mr.allocate(3000); // no bin yet: from the upstream
    mr.addBin(4096);
    mr.deallocate(ptr, 3000);
    expect(upstream.getAllocatedBytes()).toBe(preallocated(4096));
    for (const bin of mr.binMrs) bin[Symbol.dispose]();
    mr[Symbol.dispose]();
    expect(upstream.getAllocatedBytes()).toBe(0);
  });

  it('a bin that cannot be made during construction: OutOfMemoryError, the bins made so far are returned', () => {
    const upstream = new LimitingResourceAdaptor(base(), 500 * KiB); // 2^10..2^12 need 896 KiB
    const error = thrown(() => new BinningMemoryResource(upstream, { minSizeExponent: 10, maxSizeExponent: 12 }));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.message).toBe('Exceeded memory limit (failed to allocate 512.000000 KiB)');
    expect(upstream.getAllocatedBytes()).toBe(0);
  });

  it('a bin that cannot grow: its OutOfMemoryError reaches the caller, other bins go on', () => {
    const binUpstream = new LimitingResourceAdaptor(base(), 4 * KiB);
    const mr = new BinningMemoryResource(base(), { minSizeExponent: 10, maxSizeExponent: 10 });
    mr.addBin(2 * KiB, new FixedSizeMemoryResource(binUpstream, { blockSize: 2 * KiB, blocksToPreallocate: 2 }));
    const held = [mr.allocate(2000), mr.allocate(2000)];
    const error = thrown(() => mr.allocate(2000));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.message).toBe('Exceeded memory limit (failed to allocate 4.000000 KiB)');
    const small = mr.allocate(1000);
    mr.deallocate(small, 1000);
    for (const ptr of held) mr.deallocate(ptr, 2000);
    mr[Symbol.dispose]();
  });

  it('bad arguments', () => {
    const code = (fn: () => unknown) => thrown(fn).code;
    expect(code(() => new BinningMemoryResource({} as never))).toBe('ERR_INVALID_ARG_TYPE');
    expect(code(() => new BinningMemoryResource(null as never))).toBe('ERR_INVALID_ARG_TYPE');
    expect(code(() => new BinningMemoryResource(base(), null as never))).toBe('ERR_INVALID_ARG_TYPE');
    expect(code(() => new BinningMemoryResource(base(), { minSizeExponent: '10' as never, maxSizeExponent: 12 }))).toBe(
      'ERR_INVALID_ARG_TYPE',
    );
    // RMM's exponents are int8_t; 1 << exponent is undefined behaviour in RMM outside 0..30
    for (const [minSizeExponent, maxSizeExponent] of [
      [128, 130],
      [-129, 3],
      [1.5, 3],
      [3, NaN],
      [-2, 3],
      [0, 31],
      [0, 127],
    ]) {
      const error = thrown(() => new BinningMemoryResource(base(), { minSizeExponent, maxSizeExponent }));
      expect(error, `${minSizeExponent}, ${maxSizeExponent}`).toBeInstanceOf(RangeError);
      expect(error.code).toBe('ERR_OUT_OF_RANGE');
      expect(error.message).toMatch(/^The value of "options\.(min|max)SizeExponent" is out of range/);
    }
    expect(thrown(() => new BinningMemoryResource(base(), { minSizeExponent: -2, maxSizeExponent: 3 })).message).toBe(
      'The value of "options.minSizeExponent" is out of range. It must be an integer >= 0 and <= 30 (or -1 for no bins). Received -2',
    );
    expect(thrown(() => new BinningMemoryResource(base(), { maxSizeExponent: 'x' as never })).message).toBe(
      `The "options.maxSizeExponent" property must be of type number. Received type string ('x')`,
    );
    // One exponent alone, or RMM's -1, makes no bins.
    for (const options of [
      { minSizeExponent: 10 },
      { maxSizeExponent: 12 },
      { minSizeExponent: -1, maxSizeExponent: 12 },
    ]) {
      const none = new BinningMemoryResource(base(), options);
      expect(none.binMrs, JSON.stringify(options)).toEqual([]);
      none[Symbol.dispose]();
    }
    const mr = new BinningMemoryResource(base());
    expect(code(() => mr.addBin('1 KiB' as never))).toBe('ERR_INVALID_ARG_TYPE');
    expect(code(() => mr.addBin(-1))).toBe('ERR_OUT_OF_RANGE');
    expect(code(() => mr.addBin(1.5))).toBe('ERR_OUT_OF_RANGE');
    expect(code(() => mr.addBin(0))).toBe('ERR_OUT_OF_RANGE');
    // A positional argument keeps its name.
    expect(thrown(() => mr.addBin(-1)).message).toBe(
      'The value of "allocationSize" is out of range. It must be a non-negative safe integer (0 to 2^53 - 1). Received -1',
    );
    expect(code(() => mr.addBin(1024, {} as never))).toBe('ERR_INVALID_ARG_TYPE');
    expect(code(() => mr.addBin(1024, null as never))).toBe('ERR_INVALID_ARG_TYPE');
    expect(code(() => mr.addBin(1024, 'cuda' as never))).toBe('ERR_INVALID_ARG_TYPE');
    const disposed = counting();
    disposed[Symbol.dispose]();
    expect(code(() => mr.addBin(1024, disposed))).toBe('ERR_RMM_DISPOSED');
    expect(mr.binMrs).toEqual([]);
    mr[Symbol.dispose]();
  });

  it('a bin that allocates from the binning resource itself is refused (it would recurse forever)', () => {
    const mr = new BinningMemoryResource(base());
    const outer = new BinningMemoryResource(base());
    outer.addBin(4096, mr);
    const cases: [string, DeviceMemoryResource][] = [
      ['itself', mr],
      ['an adaptor over it', counting(mr)],
      ['a binning resource with it as a bin', outer],
    ];
    for (const [what, bin] of cases) {
      const error = thrown(() => mr.addBin(1024, bin));
      expect(error, what).toBeInstanceOf(TypeError);
      expect(error.code).toBe('ERR_INVALID_ARG_VALUE');
      expect(error.message).toContain('"binResource"');
    }
    expect(mr.binMrs).toEqual([]);
    mr.addBin(1024, new BinningMemoryResource(base()));
    expect(mr.binMrs).toHaveLength(1);
  });

  it.runIf(onFake())(
    'fake driver: bins take one cuMemAlloc each; dispose frees them all; a failing one leaks nothing',
    () => {
      const upstream = new CudaMemoryResource();
      const before = fakeCuda.stats();
      const mr = new BinningMemoryResource(upstream, { minSizeExponent: 10, maxSizeExponent: 13 });
      expect(fakeCuda.stats().liveAllocations).toBe(before.liveAllocations + 4);
      expect(fakeCuda.stats().liveDeviceBytes[0]).toBe(
        before.liveDeviceBytes[0] + preallocated(1024, 2048, 4096, 8192),
      );
      const ptr = mr.allocate(3 * MiB);
      expect(fakeCuda.stats().liveAllocations).toBe(before.liveAllocations + 5);
      mr.deallocate(ptr, 3 * MiB);
      mr[Symbol.dispose]();
      expect(fakeCuda.stats().liveAllocations).toBe(before.liveAllocations);
      fakeCuda.failNext('cuMemAlloc_v2', 3, 'CUDA_ERROR_OUT_OF_MEMORY');
      const error = thrown(() => new BinningMemoryResource(upstream, { minSizeExponent: 10, maxSizeExponent: 13 }));
      expect(error).toBeInstanceOf(OutOfMemoryError);
      expect(error.message).toContain('cuMemAlloc_v2');
      const after = fakeCuda.stats();
      expect(after.liveAllocations).toBe(before.liveAllocations);
      expect(after.liveEvents).toBe(before.liveEvents);
    },
  );
});
