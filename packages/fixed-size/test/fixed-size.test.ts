import {
  CudaMemoryResource,
  DeviceBuffer,
  OutOfMemoryError,
  RMMError,
  getCurrentDeviceResource,
  setCurrentDeviceResource,
} from '@rmmjs/core';
import { FixedSizeMemoryResource } from '@rmmjs/fixed-size';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { KiB, MiB, arrayTester, counting, itemSizes, nelems } from '@rmmjs/test-helpers';
import { expectBytes, fakeCuda, onFake, pattern, random, thrown, withCuda } from '@rmmjs/test-helpers';
import { disposeAfterEach, restoreCurrentDeviceResourceAfterEach } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';
import { availableUpstreams } from './helpers.js';

const base = () => getCurrentDeviceResource();

describe.each(availableUpstreams())('FixedSizeMemoryResource over $name', ({ make }) => {
  const keep = disposeAfterEach();
  restoreCurrentDeviceResourceAfterEach(); // after-hooks run last first: restored, then disposed

  it('RMM test: block_size 1 MiB, 128 blocks, as the current resource (array_tester)', () => {
    setCurrentDeviceResource(
      keep(new FixedSizeMemoryResource(make(), { blockSize: 1 << 20, blocksToPreallocate: 128 })),
    );
    let seed = 0;
    for (const itemSize of itemSizes) for (const nelem of nelems) arrayTester(itemSize * nelem, ++seed);
  });

  it('RMM test: allocations are different, 256-byte aligned, of the block size at most', () => {
    const mr = new FixedSizeMemoryResource(make(), { blockSize: 64 * KiB, blocksToPreallocate: 4 });
    const a = mr.allocate(8);
    const b = mr.allocate(8);
    expect(a).not.toBe(b);
    expect(a % 256n).toBe(0n);
    expect(b % 256n).toBe(0n);
    expect(mr.allocate(0)).toBe(0n);
    mr.deallocate(0n, 0);
    const full = mr.allocate(64 * KiB);
    const error = thrown(() => mr.allocate(64 * KiB + 1));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.code).toBe('ERR_RMM_OUT_OF_MEMORY');
    expect(error.message).toBe('Maximum allocation size exceeded (failed to allocate 64.250000 KiB)');
    for (const [ptr, size] of [
      [a, 8],
      [b, 8],
      [full, 64 * KiB],
    ] as const)
      mr.deallocate(ptr, size);
    mr[Symbol.dispose]();
  });

  it('a seeded random workload: no block is handed out twice, every byte pattern survives', () => {
    const mr = new FixedSizeMemoryResource(make(), { blockSize: 4 * KiB, blocksToPreallocate: 16 });
    const next = random(7);
    const live: { buffer: DeviceBuffer; seed: number }[] = [];
    const pointers = new Set<bigint>();
    for (let step = 0; step < 600; step++) {
      if (live.length > 0 && (live.length >= 60 || next() < 0.45)) {
        const at = Math.floor(next() * live.length);
        const { buffer, seed } = live[at];
        expectBytes(buffer.toBytes(), pattern(buffer.size, seed));
        pointers.delete(buffer.ptr);
        buffer.free();
        live[at] = live[live.length - 1];
        live.pop();
      } else {
        const size = 1 + Math.floor(next() * 4 * KiB);
        const buffer = new DeviceBuffer({ data: pattern(size, step), mr });
        expect(pointers.has(buffer.ptr)).toBe(false);
        pointers.add(buffer.ptr);
        live.push({ buffer, seed: step });
      }
    }
    for (const { buffer, seed } of live) {
      expectBytes(buffer.toBytes(), pattern(buffer.size, seed));
      buffer.free();
    }
    mr[Symbol.dispose]();
  });
});

describe('FixedSizeMemoryResource', () => {
  it('defaults: blocks of 1 MiB, 128 of them taken from the upstream in one allocation', () => {
    const upstream = counting();
    const mr = new FixedSizeMemoryResource(upstream);
    expect(mr.getBlockSize()).toBe(MiB);
    expect(upstream.getAllocatedBytes()).toBe(128 * MiB);
    mr[Symbol.dispose]();
    expect(upstream.getAllocatedBytes()).toBe(0);
  });

  it('aligns the block size up to 256 and accepts byte strings', () => {
    expect(new FixedSizeMemoryResource(base(), { blockSize: 1000, blocksToPreallocate: 1 }).getBlockSize()).toBe(1024);
    expect(new FixedSizeMemoryResource(base(), { blockSize: 1, blocksToPreallocate: 1 }).getBlockSize()).toBe(256);
    expect(new FixedSizeMemoryResource(base(), { blockSize: '2 KiB', blocksToPreallocate: 1 }).getBlockSize()).toBe(
      2048,
    );
    expect(new FixedSizeMemoryResource(base(), { blockSize: '1kb', blocksToPreallocate: 1 }).getBlockSize()).toBe(1024);
  });

  it('hands out the blocks of a chunk in address order, and freed blocks after them (first in, first out)', () => {
    const mr = new FixedSizeMemoryResource(base(), { blockSize: 1000, blocksToPreallocate: 4 });
    const first = mr.allocate(1);
    expect([mr.allocate(1024), mr.allocate(500)]).toEqual([first + 1024n, first + 2048n]);
    mr.deallocate(first, 1);
    expect(mr.allocate(1)).toBe(first + 3072n);
    expect(mr.allocate(1)).toBe(first);
    for (let i = 0n; i < 4n; i++) mr.deallocate(first + i * 1024n, 1);
    mr[Symbol.dispose]();
  });

  it('takes another chunk of blocksToPreallocate blocks only when no block is free', () => {
    const upstream = counting();
    const mr = new FixedSizeMemoryResource(upstream, { blockSize: 1 * KiB, blocksToPreallocate: 3 });
    expect(upstream.getAllocatedBytes()).toBe(3 * KiB);
    const blocks = [mr.allocate(KiB), mr.allocate(KiB), mr.allocate(KiB)];
    expect(upstream.getAllocatedBytes()).toBe(3 * KiB);
    blocks.push(mr.allocate(1));
    expect(upstream.getAllocatedBytes()).toBe(6 * KiB);
    mr.deallocate(blocks.pop()!, 1);
    blocks.push(mr.allocate(1), mr.allocate(1), mr.allocate(1));
    expect(upstream.getAllocatedBytes()).toBe(6 * KiB);
    blocks.push(mr.allocate(1));
    expect(upstream.getAllocatedBytes()).toBe(9 * KiB);
    expect(new Set(blocks).size).toBe(7);
    for (const ptr of blocks) mr.deallocate(ptr, 1);
    expect(upstream.getAllocatedBytes()).toBe(9 * KiB); // kept until the resource goes
    mr[Symbol.dispose]();
    expect(upstream.getAllocatedBytes()).toBe(0);
  });

  it('a block freed twice, or memory it did not hand out, is refused (RMMError) and changes nothing', () => {
    const mr = new FixedSizeMemoryResource(base(), { blockSize: 1 * KiB, blocksToPreallocate: 2 });
    const a = mr.allocate(10);
    mr.deallocate(a, 10);
    for (const [ptr, what] of [
      [a, 'twice'],
      [a + 256n, 'inside a block'],
      [0x1000n, 'foreign'],
    ] as const) {
      const error = thrown(() => mr.deallocate(ptr, 10));
      expect(error, what).toBeInstanceOf(RMMError);
      expect(error.code).toBe('ERR_RMM_LOGIC');
      expect(error.message).toBe(
        `FixedSizeMemoryResource: cannot deallocate 10 bytes at 0x${ptr.toString(16)}: not a block it handed out, or already deallocated`,
      );
    }
    const blocks = [mr.allocate(1), mr.allocate(1)];
    expect(new Set(blocks).size).toBe(2);
    expect(blocks).toContain(a);
    for (const ptr of blocks) mr.deallocate(ptr, 1);
    mr[Symbol.dispose]();
  });

  it('keeps its upstream alive and exposes it; buffers keep the resource alive', () => {
    const upstream = withCuda() ? new CudaMemoryResource() : counting();
    const mr = new FixedSizeMemoryResource(upstream, { blockSize: 4 * KiB, blocksToPreallocate: 2 });
    expect(mr.upstreamMr).toBe(upstream);
    expect(mr.getUpstream()).toBe(upstream);
    upstream[Symbol.dispose]();
    const buffer = new DeviceBuffer({ data: pattern(3000, 5), mr });
    mr[Symbol.dispose]();
    expectBytes(buffer.toBytes(), pattern(3000, 5));
    buffer.free();
  });

  it('returns every chunk to the upstream when the last user lets go', () => {
    const upstream = counting();
    const mr = new FixedSizeMemoryResource(upstream, { blockSize: 1 * KiB, blocksToPreallocate: 2 });
    const buffers = [1, 2, 3, 4, 5].map((seed) => new DeviceBuffer({ data: pattern(KiB, seed), mr }));
    expect(upstream.getAllocatedBytes()).toBe(6 * KiB);
    mr[Symbol.dispose]();
    expect(upstream.getAllocatedBytes()).toBe(6 * KiB);
    buffers.forEach((buffer, i) => expectBytes(buffer.toBytes(), pattern(KiB, i + 1)));
    for (const buffer of buffers) buffer.free();
    expect(upstream.getAllocatedBytes()).toBe(0);
  });

  it('bad arguments', () => {
    const code = (fn: () => unknown) => thrown(fn).code;
    expect(code(() => new FixedSizeMemoryResource({} as never))).toBe('ERR_INVALID_ARG_TYPE');
    expect(code(() => new FixedSizeMemoryResource(undefined as never))).toBe('ERR_INVALID_ARG_TYPE');
    expect(code(() => new FixedSizeMemoryResource(base(), null as never))).toBe('ERR_INVALID_ARG_TYPE');
    expect(code(() => new FixedSizeMemoryResource(base(), { blockSize: -1 }))).toBe('ERR_OUT_OF_RANGE');
    expect(code(() => new FixedSizeMemoryResource(base(), { blockSize: 1.5 }))).toBe('ERR_OUT_OF_RANGE');
    expect(code(() => new FixedSizeMemoryResource(base(), { blockSize: 10n as never }))).toBe('ERR_INVALID_ARG_TYPE');
    expect(code(() => new FixedSizeMemoryResource(base(), { blockSize: '1k' }))).toBe('ERR_INVALID_ARG_VALUE');
    expect(code(() => new FixedSizeMemoryResource(base(), { blocksToPreallocate: -1 }))).toBe('ERR_OUT_OF_RANGE');
    expect(code(() => new FixedSizeMemoryResource(base(), { blocksToPreallocate: 2.5 }))).toBe('ERR_OUT_OF_RANGE');
    expect(code(() => new FixedSizeMemoryResource(base(), { blocksToPreallocate: '2' as never }))).toBe(
      'ERR_INVALID_ARG_TYPE',
    );
    // RMM divides by a zero block size, and with zero blocks per chunk hands out null pointers.
    const zeroBlock = thrown(() => new FixedSizeMemoryResource(base(), { blockSize: 0 }));
    expect(zeroBlock).toBeInstanceOf(RangeError);
    expect(zeroBlock.code).toBe('ERR_OUT_OF_RANGE');
    expect(zeroBlock.message).toBe(
      'The value of "options.blockSize" is out of range. It must be >= 1 byte. Received 0',
    );
    const zeroBlocks = thrown(() => new FixedSizeMemoryResource(base(), { blocksToPreallocate: 0 }));
    expect(zeroBlocks).toBeInstanceOf(RangeError);
    expect(zeroBlocks.message).toBe(
      'The value of "options.blocksToPreallocate" is out of range. It must be >= 1. Received 0',
    );
    const huge = thrown(
      () => new FixedSizeMemoryResource(base(), { blockSize: 2 ** 40, blocksToPreallocate: 2 ** 20 }),
    );
    expect(huge.code).toBe('ERR_OUT_OF_RANGE');
    expect(huge.message).toBe(
      'The value of "options.blocksToPreallocate" is out of range. It must be <= 8191 for blocks of 1099511627776 bytes. Received 1048576',
    );
    expect(thrown(() => new FixedSizeMemoryResource(base(), { blockSize: '1k' })).message).toBe(
      'The property "options.blockSize" is invalid. Could not parse 1k as a byte specification',
    );
    expect(thrown(() => new FixedSizeMemoryResource(base(), { blocksToPreallocate: '2' as never })).message).toBe(
      `The "options.blocksToPreallocate" property must be of type number. Received type string ('2')`,
    );
    const mr = new FixedSizeMemoryResource(base(), { blockSize: KiB, blocksToPreallocate: 1 });
    expect(code(() => mr.allocate(-1))).toBe('ERR_OUT_OF_RANGE');
    expect(code(() => mr.allocate('1' as never))).toBe('ERR_INVALID_ARG_TYPE');
    expect(code(() => mr.deallocate(1 as never, 1))).toBe('ERR_INVALID_ARG_TYPE');
    mr[Symbol.dispose]();
  });

  it('an upstream that cannot give the first chunk: OutOfMemoryError, nothing held', () => {
    const upstream = new LimitingResourceAdaptor(base(), 10 * KiB);
    const error = thrown(() => new FixedSizeMemoryResource(upstream, { blockSize: 4 * KiB, blocksToPreallocate: 3 }));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.message).toBe('Exceeded memory limit (failed to allocate 12.000000 KiB)');
    expect(upstream.getAllocatedBytes()).toBe(0);
  });

  it('an upstream that cannot give another chunk: OutOfMemoryError, the blocks handed out stay good', () => {
    const upstream = new LimitingResourceAdaptor(base(), 10 * KiB);
    const mr = new FixedSizeMemoryResource(upstream, { blockSize: 4 * KiB, blocksToPreallocate: 2 });
    const buffers = [
      new DeviceBuffer({ data: pattern(4 * KiB, 1), mr }),
      new DeviceBuffer({ data: pattern(4 * KiB, 2), mr }),
    ];
    const error = thrown(() => mr.allocate(1));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.message).toBe('Exceeded memory limit (failed to allocate 8.000000 KiB)');
    expect(upstream.getAllocatedBytes()).toBe(8 * KiB);
    expectBytes(buffers[1].toBytes(), pattern(4 * KiB, 2));
    buffers[0].free();
    const again = mr.allocate(1);
    mr.deallocate(again, 1);
    buffers[1].free();
    mr[Symbol.dispose]();
    expect(upstream.getAllocatedBytes()).toBe(0);
  });

  describe.runIf(onFake())('on the fake driver', () => {
    it('one cuMemAlloc per chunk, all freed on dispose; no events for default-stream use', () => {
      const upstream = new CudaMemoryResource();
      const before = fakeCuda.stats();
      fakeCuda.reset();
      const mr = new FixedSizeMemoryResource(upstream, { blockSize: 64 * KiB, blocksToPreallocate: 4 });
      expect(fakeCuda.stats().calls.cuMemAlloc_v2).toBe(1);
      expect(fakeCuda.stats().liveAllocations).toBe(before.liveAllocations + 1);
      const blocks = Array.from({ length: 9 }, () => mr.allocate(100));
      const stats = fakeCuda.stats();
      expect(stats.calls.cuMemAlloc_v2).toBe(3);
      expect(stats.liveAllocations).toBe(before.liveAllocations + 3);
      expect(stats.liveDeviceBytes[0]).toBe(before.liveDeviceBytes[0] + 12 * 64 * KiB);
      for (const ptr of blocks) mr.deallocate(ptr, 100);
      for (const ptr of blocks) mr.deallocate(mr.allocate(100), 100);
      const after = fakeCuda.stats();
      expect(after.calls.cuMemAlloc_v2).toBe(3);
      expect(after.calls.cuEventCreate ?? 0).toBe(0);
      expect(after.calls.cuEventRecord ?? 0).toBe(0);
      mr[Symbol.dispose]();
      const end = fakeCuda.stats();
      expect(end.calls.cuMemFree_v2).toBe(3);
      expect(end.liveAllocations).toBe(before.liveAllocations);
      expect(end.liveEvents).toBe(before.liveEvents);
    });

    it('a failing first chunk (cuMemAlloc): OutOfMemoryError with the driver error, nothing leaks', () => {
      const before = fakeCuda.stats();
      fakeCuda.failNext('cuMemAlloc_v2', 1, 'CUDA_ERROR_OUT_OF_MEMORY');
      const error = thrown(
        () => new FixedSizeMemoryResource(new CudaMemoryResource(), { blockSize: KiB, blocksToPreallocate: 4 }),
      );
      expect(error).toBeInstanceOf(OutOfMemoryError);
      expect(error.message).toContain('cuMemAlloc_v2');
      const after = fakeCuda.stats();
      expect(after.liveAllocations).toBe(before.liveAllocations);
      expect(after.liveEvents).toBe(before.liveEvents);
    });

    it('a failing refill (cuMemAlloc): OutOfMemoryError, then the next request grows the pool', () => {
      const mr = new FixedSizeMemoryResource(new CudaMemoryResource(), { blockSize: KiB, blocksToPreallocate: 2 });
      const blocks = [mr.allocate(1), mr.allocate(1)];
      const before = fakeCuda.stats();
      fakeCuda.failNext('cuMemAlloc_v2', 1, 'CUDA_ERROR_OUT_OF_MEMORY');
      expect(thrown(() => mr.allocate(1))).toBeInstanceOf(OutOfMemoryError);
      expect(fakeCuda.stats().liveAllocations).toBe(before.liveAllocations);
      blocks.push(mr.allocate(1));
      expect(fakeCuda.stats().liveAllocations).toBe(before.liveAllocations + 1);
      expect(new Set(blocks).size).toBe(3);
      for (const ptr of blocks) mr.deallocate(ptr, 1);
      mr[Symbol.dispose]();
      expect(fakeCuda.stats().liveAllocations).toBe(before.liveAllocations - 1);
    });

    it('the current resource for DeviceBuffer with the fake memory budget', () => {
      const mr = new FixedSizeMemoryResource(new CudaMemoryResource(), { blockSize: MiB, blocksToPreallocate: 200 });
      const error = thrown(
        () => new FixedSizeMemoryResource(new CudaMemoryResource(), { blockSize: MiB, blocksToPreallocate: 100 }),
      );
      expect(error).toBeInstanceOf(OutOfMemoryError);
      mr[Symbol.dispose]();
      new FixedSizeMemoryResource(new CudaMemoryResource(), { blockSize: MiB, blocksToPreallocate: 100 })[
        Symbol.dispose
      ]();
    });
  });
});
