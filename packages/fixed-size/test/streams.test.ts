// RMM's stream-ordered free lists: a block freed on stream A is reused on A at once, and on
// another stream only after that stream waits on A's event.
import {
  CudaError,
  CudaMemoryResource,
  DEFAULT_STREAM,
  DeviceBuffer,
  LEGACY_DEFAULT_STREAM,
  PER_THREAD_DEFAULT_STREAM,
  Stream,
  getCurrentDeviceResource,
} from '@rmmjs/core';
import { FixedSizeMemoryResource } from '@rmmjs/fixed-size';
import { KiB, expectBytes, fakeCuda, onFake, pattern, thrown, withCuda } from '@rmmjs/test-helpers';
import { afterEach, describe, expect, it } from 'vitest';

const upstream = () => (withCuda() ? new CudaMemoryResource() : getCurrentDeviceResource());
const calls = () => fakeCuda.stats().calls as Record<string, number>;
/** Driver calls of `names` made by fn (on the fake driver). */
function countCalls(names: string[], fn: () => void): Record<string, number> {
  const before = calls();
  fn();
  const after = calls();
  return Object.fromEntries(names.map((name) => [name, (after[name] ?? 0) - (before[name] ?? 0)]));
}

afterEach(() => {
  if (onFake()) fakeCuda.clearFaults();
});

describe('FixedSizeMemoryResource with streams', () => {
  it('a block freed on a stream is reused on that stream at once (first in, first out)', () => {
    const mr = new FixedSizeMemoryResource(upstream(), { blockSize: KiB, blocksToPreallocate: 4 });
    using stream = new Stream();
    const a = mr.allocate(100, stream);
    mr.deallocate(a, 100, stream);
    expect(mr.allocate(100, stream)).toBe(a);
    mr.deallocate(a, 100, stream);
    mr[Symbol.dispose]();
  });

  it('the default stream and the legacy default stream share one free list', () => {
    const mr = new FixedSizeMemoryResource(upstream(), { blockSize: KiB, blocksToPreallocate: 1 });
    const a = mr.allocate(1, DEFAULT_STREAM);
    mr.deallocate(a, 1, LEGACY_DEFAULT_STREAM);
    expect(mr.allocate(1)).toBe(a);
    mr.deallocate(a, 1);
    mr[Symbol.dispose]();
  });

  it('a block freed on stream A serves stream B when B has none (after a wait), and B keeps it', () => {
    const mr = new FixedSizeMemoryResource(upstream(), { blockSize: KiB, blocksToPreallocate: 1 });
    using a = new Stream();
    using b = new Stream();
    const ptr = mr.allocate(10, a);
    mr.deallocate(ptr, 10, a);
    expect(mr.allocate(10, b)).toBe(ptr);
    mr.deallocate(ptr, 10, b);
    expect(mr.allocate(10, b)).toBe(ptr);
    mr.deallocate(ptr, 10, b);
    mr[Symbol.dispose]();
  });

  it('the per-thread default stream', () => {
    const mr = new FixedSizeMemoryResource(upstream(), { blockSize: KiB, blocksToPreallocate: 2 });
    const buffer = new DeviceBuffer({ data: pattern(KiB, 3), mr, stream: PER_THREAD_DEFAULT_STREAM });
    expectBytes(buffer.toBytes(PER_THREAD_DEFAULT_STREAM), pattern(KiB, 3));
    const ptr = buffer.ptr;
    buffer.free();
    expect(mr.allocate(1, PER_THREAD_DEFAULT_STREAM)).toBe(ptr);
    mr.deallocate(ptr, 1, PER_THREAD_DEFAULT_STREAM);
    mr[Symbol.dispose]();
  });

  it('blocks freed on a stream that is gone since are still reused, and bytes stay right', () => {
    const mr = new FixedSizeMemoryResource(upstream(), { blockSize: 4 * KiB, blocksToPreallocate: 2 });
    const stream = new Stream();
    const buffers = [1, 2].map((seed) => new DeviceBuffer({ data: pattern(4 * KiB, seed), mr, stream }));
    for (const buffer of buffers) buffer.free();
    stream[Symbol.dispose]();
    const reused = [5, 6, 7].map((seed) => new DeviceBuffer({ data: pattern(4 * KiB, seed), mr }));
    reused.forEach((buffer, i) => expectBytes(buffer.toBytes(), pattern(4 * KiB, i + 5)));
    expect(new Set(reused.map((buffer) => buffer.ptr)).size).toBe(3);
    for (const buffer of reused) buffer.free();
    mr[Symbol.dispose]();
  });

  it("RMM DeletedStream: a new stream, even with the destroyed stream's handle, waits before taking its blocks", () => {
    const mr = new FixedSizeMemoryResource(upstream(), { blockSize: 4 * KiB, blocksToPreallocate: 1 });
    const old = new Stream();
    const handle = old.handle;
    const buffer = new DeviceBuffer({ data: pattern(4 * KiB, 8), mr, stream: old });
    const ptr = buffer.ptr;
    buffer.free();
    old[Symbol.dispose]();
    using fresh = new Stream();
    // The fake driver hands a destroyed stream's handle to the next stream, as the driver may.
    if (onFake()) expect(fresh.handle).toBe(handle);
    const take = () => expect(mr.allocate(4 * KiB, fresh)).toBe(ptr);
    if (onFake())
      expect(countCalls(['cuStreamWaitEvent', 'cuMemAlloc_v2'], take)).toEqual({
        cuStreamWaitEvent: 1,
        cuMemAlloc_v2: 0,
      });
    else take();
    mr.deallocate(ptr, 4 * KiB, fresh);
    // As in RMM's test: the default stream allocates after the stream is gone.
    const again = new DeviceBuffer({ data: pattern(4 * KiB, 9), mr });
    expect(again.ptr).toBe(ptr);
    expectBytes(again.toBytes(), pattern(4 * KiB, 9));
    again.free();
    mr[Symbol.dispose]();
  });

  describe.runIf(onFake())('driver calls (fake driver)', () => {
    it('a free on a stream records its event at once; taking the block on another stream waits on it', () => {
      const mr = new FixedSizeMemoryResource(new CudaMemoryResource(), { blockSize: KiB, blocksToPreallocate: 1 });
      const a = new Stream();
      using b = new Stream();
      const ptr = mr.allocate(10);
      expect(countCalls(['cuEventCreate', 'cuEventRecord'], () => mr.deallocate(ptr, 10, a))).toEqual({
        cuEventCreate: 1,
        cuEventRecord: 1,
      });
      a[Symbol.dispose](); // the event stays valid
      expect(countCalls(['cuStreamWaitEvent', 'cuMemAlloc_v2'], () => expect(mr.allocate(10, b)).toBe(ptr))).toEqual({
        cuStreamWaitEvent: 1,
        cuMemAlloc_v2: 0,
      });
      expect(
        countCalls(['cuStreamWaitEvent', 'cuEventRecord'], () => {
          mr.deallocate(ptr, 10, b);
          expect(mr.allocate(10, b)).toBe(ptr);
        }),
      ).toEqual({ cuStreamWaitEvent: 0, cuEventRecord: 1 });
      mr.deallocate(ptr, 10, b);
      const live = fakeCuda.stats().liveEvents;
      mr[Symbol.dispose]();
      expect(fakeCuda.stats().liveEvents).toBe(live - 2);
    });

    it('frees on the default stream make no driver call; a stream taking such a block records then waits', () => {
      const mr = new FixedSizeMemoryResource(new CudaMemoryResource(), { blockSize: KiB, blocksToPreallocate: 2 });
      using stream = new Stream();
      const first = countCalls(['cuStreamWaitEvent', 'cuEventRecord'], () => {
        const untouched = mr.allocate(10, stream); // never used on the default stream: no wait
        mr.deallocate(untouched, 10, stream);
      });
      expect(first).toEqual({ cuStreamWaitEvent: 0, cuEventRecord: 1 });
      const ptrs = [mr.allocate(10), mr.allocate(10)];
      const frees = countCalls(['cuEventCreate', 'cuEventRecord', 'cuStreamWaitEvent'], () => {
        for (const ptr of ptrs) mr.deallocate(ptr, 10);
      });
      expect(frees).toEqual({ cuEventCreate: 0, cuEventRecord: 0, cuStreamWaitEvent: 0 });
      const steal = countCalls(['cuEventCreate', 'cuEventRecord', 'cuStreamWaitEvent'], () => {
        const taken = [mr.allocate(10, stream), mr.allocate(10, stream)];
        expect(taken.sort()).toEqual([...ptrs].sort());
      });
      // one record of the default stream's event (its blocks were freed since), then a wait per block
      expect(steal).toEqual({ cuEventCreate: 1, cuEventRecord: 1, cuStreamWaitEvent: 2 });
      mr[Symbol.dispose]();
    });

    it('a failing event record: CudaError, the block stays with the caller and can be freed again', () => {
      const mr = new FixedSizeMemoryResource(new CudaMemoryResource(), { blockSize: KiB, blocksToPreallocate: 1 });
      using stream = new Stream();
      const ptr = mr.allocate(10);
      fakeCuda.failNext('cuEventRecord', 1, 'CUDA_ERROR_LAUNCH_FAILED');
      const error = thrown(() => mr.deallocate(ptr, 10, stream));
      expect(error).toBeInstanceOf(CudaError);
      expect(error.cudaErrorName).toBe('CUDA_ERROR_LAUNCH_FAILED');
      const live = fakeCuda.stats().liveAllocations;
      mr.deallocate(ptr, 10, stream);
      expect(mr.allocate(10, stream)).toBe(ptr);
      expect(fakeCuda.stats().liveAllocations).toBe(live);
      mr.deallocate(ptr, 10, stream);
      mr[Symbol.dispose]();
    });

    it('a failing event creation: CudaError, nothing changes', () => {
      const mr = new FixedSizeMemoryResource(new CudaMemoryResource(), { blockSize: KiB, blocksToPreallocate: 1 });
      using stream = new Stream();
      const ptr = mr.allocate(10);
      fakeCuda.failNext('cuEventCreate', 1, 'CUDA_ERROR_OUT_OF_MEMORY');
      expect(thrown(() => mr.deallocate(ptr, 10, stream)).code).toBe('ERR_CUDA');
      mr.deallocate(ptr, 10, stream);
      mr[Symbol.dispose]();
    });

    it('a failing wait: CudaError, the block stays free for the next request', () => {
      const mr = new FixedSizeMemoryResource(new CudaMemoryResource(), { blockSize: KiB, blocksToPreallocate: 1 });
      using a = new Stream();
      using b = new Stream();
      const ptr = mr.allocate(10, a);
      mr.deallocate(ptr, 10, a);
      fakeCuda.failNext('cuStreamWaitEvent', 1, 'CUDA_ERROR_INVALID_HANDLE');
      expect(thrown(() => mr.allocate(10, b)).code).toBe('ERR_CUDA');
      expect(mr.allocate(10, b)).toBe(ptr);
      mr.deallocate(ptr, 10, b);
      mr[Symbol.dispose]();
    });

    it('dispose waits for and destroys the events of every stream it saw', () => {
      const before = fakeCuda.stats().liveEvents;
      const mr = new FixedSizeMemoryResource(new CudaMemoryResource(), { blockSize: KiB, blocksToPreallocate: 4 });
      const streams = [new Stream(), new Stream(), new Stream()];
      for (const stream of streams) mr.deallocate(mr.allocate(1, stream), 1, stream);
      mr.deallocate(mr.allocate(1), 1);
      expect(fakeCuda.stats().liveEvents).toBe(before + 3);
      const synchronized = countCalls(
        ['cuEventSynchronize', 'cuEventDestroy_v2', 'cuEventRecord', 'cuStreamSynchronize'],
        () => mr[Symbol.dispose](),
      );
      // the default stream, whose frees recorded no event, is synchronized instead
      expect(synchronized).toEqual({
        cuEventSynchronize: 3,
        cuEventDestroy_v2: 3,
        cuEventRecord: 0,
        cuStreamSynchronize: 1,
      });
      expect(fakeCuda.stats().liveEvents).toBe(before);
      for (const stream of streams) stream[Symbol.dispose]();
    });
  });
});
