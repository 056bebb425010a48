import {
  CudaMemoryResource,
  CudaStreamPool,
  DEFAULT_STREAM,
  DeviceBuffer,
  LEGACY_DEFAULT_STREAM,
  PER_THREAD_DEFAULT_STREAM,
  RMMError,
  Stream,
  cuda,
} from '@rmmjs/core';
import { expectBytes, fakeCuda, onFake, pattern, thrown } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

describe('Stream', () => {
  it('the default streams have handles 0n, 1n, 2n and are default', () => {
    expect(DEFAULT_STREAM.handle).toBe(0n);
    expect(LEGACY_DEFAULT_STREAM.handle).toBe(1n);
    expect(PER_THREAD_DEFAULT_STREAM.handle).toBe(2n);
    for (const stream of [DEFAULT_STREAM, LEGACY_DEFAULT_STREAM, PER_THREAD_DEFAULT_STREAM]) {
      expect(stream.isDefault()).toBe(true);
      stream.synchronize();
    }
    expect(DEFAULT_STREAM.equals(LEGACY_DEFAULT_STREAM)).toBe(false);
  });

  it('new streams have distinct non-default handles and synchronize', async () => {
    using a = new Stream();
    using b = new Stream({ nonBlocking: true, priority: -1 });
    expect(a.handle).not.toBe(b.handle);
    expect(a.handle > 2n).toBe(true);
    expect(a.isDefault()).toBe(false);
    expect(a.equals(a)).toBe(true);
    expect(a.equals(b)).toBe(false);
    expect(a.equals('stream')).toBe(false);
    // A disposed stream has no handle to compare: it equals nothing, and comparing never throws.
    const c = new Stream();
    c[Symbol.dispose]();
    expect([a.equals(c), c.equals(a), c.equals(c)]).toEqual([false, false, false]);
    a.synchronize();
    await expect(b.synchronizeAsync()).resolves.toBeUndefined();
  });

  // libuv's threads run the wait, and there PER_THREAD_DEFAULT_STREAM is another thread's stream:
  // the wait is for an event recorded on this thread's.
  it.runIf(onFake())("PER_THREAD_DEFAULT_STREAM.synchronizeAsync waits for this thread's stream", async () => {
    const count = (name: string) => fakeCuda.stats().calls[name] ?? 0;
    const names = ['cuEventRecord', 'cuEventSynchronize', 'cuEventDestroy_v2', 'cuStreamSynchronize'];
    const before = names.map(count);
    await expect(PER_THREAD_DEFAULT_STREAM.synchronizeAsync()).resolves.toBeUndefined();
    expect(names.map((name, i) => count(name) - before[i])).toEqual([1, 1, 1, 0]);
    using other = new Stream();
    await other.synchronizeAsync(); // another stream is synchronised itself
    expect(names.map((name, i) => count(name) - before[i])).toEqual([1, 1, 1, 1]);
    // An asynchronous copy on the per-thread stream first waits for its earlier work the same way.
    using buffer = new DeviceBuffer({ size: 64, stream: PER_THREAD_DEFAULT_STREAM });
    await buffer.copyFromHostAsync(pattern(64, 7), PER_THREAD_DEFAULT_STREAM);
    expectBytes(buffer.toBytes(), pattern(64, 7));
    expect(names.slice(0, 3).map((name, i) => count(name) - before[i])).toEqual([2, 2, 2]);
    // An event that cannot be recorded rejects the promise, and the event is destroyed.
    fakeCuda.failNext('cuEventRecord', 1, 'CUDA_ERROR_LAUNCH_FAILED');
    const error = await PER_THREAD_DEFAULT_STREAM.synchronizeAsync().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RMMError);
    expect((error as RMMError).message).toMatch(/cuEventRecord/);
    expect(names.slice(0, 3).map((name, i) => count(name) - before[i])).toEqual([3, 2, 3]);
  });

  it('fromHandle wraps a handle and equals compares handles', () => {
    using a = new Stream();
    const b = Stream.fromHandle(a.handle);
    expect(b.equals(a)).toBe(true);
    expect(b.handle).toBe(a.handle);
    b[Symbol.dispose](); // not owned: the stream itself stays
    a.synchronize();
    expect(Stream.fromHandle(0).equals(DEFAULT_STREAM)).toBe(true);
    expect(thrown(() => Stream.fromHandle(-1)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => Stream.fromHandle('1' as never)).code).toBe('ERR_INVALID_ARG_TYPE');
  });

  const twoDevices = cuda.isAvailable() && cuda.getDeviceCount() >= 2;
  it.skipIf(!twoDevices)("fromHandle takes the stream's own device, not the current one", () => {
    using theirs = new Stream(); // device 0's
    cuda.setDevice(1);
    try {
      const borrowed = Stream.fromHandle(theirs.handle);
      expect(borrowed.device).toBe(0);
      expect(Stream.fromHandle(Number(theirs.handle)).device).toBe(0);
      using ours = new Stream();
      expect(Stream.fromHandle(ours.handle).device).toBe(1);
      // Work on the borrowed stream runs in device 0's context.
      using buffer = new DeviceBuffer({ data: pattern(64, 3), stream: borrowed });
      expect(buffer.device).toBe(1);
      buffer.copyFromHost(pattern(64, 4), borrowed);
      expectBytes(buffer.toBytes(borrowed), pattern(64, 4));
    } finally {
      cuda.setDevice(0);
    }
  });

  it.skipIf(!twoDevices)('the default streams belong to the current device', () => {
    cuda.setDevice(1);
    try {
      for (const stream of [DEFAULT_STREAM, LEGACY_DEFAULT_STREAM, PER_THREAD_DEFAULT_STREAM, Stream.fromHandle(2)])
        expect(stream.device).toBe(1);
    } finally {
      cuda.setDevice(0);
    }
    expect(DEFAULT_STREAM.device).toBe(0);
  });

  it.skipIf(!cuda.isAvailable())('a borrowed handle that only serves as a token never reaches the driver', () => {
    // A real GPU would crash dereferencing this handle: borrowing it, and allocating from a
    // resource that takes no stream (cuMemAlloc), must not look at it.
    const token = Stream.fromHandle(0xdeadbeefn);
    expect(token.handle).toBe(0xdeadbeefn);
    expect(token.toString()).toBe('Stream(0xdeadbeef)');
    using mr = new CudaMemoryResource();
    const asked = () => (onFake() ? (fakeCuda.stats().calls.cuStreamGetCtx ?? 0) : 0);
    const before = asked();
    const ptr = mr.allocate(8, token);
    expect(ptr).not.toBe(0n);
    mr.deallocate(ptr, 8);
    expect(asked()).toBe(before);
    if (!onFake()) return;
    // A live stream's device is asked once, when first needed, and kept.
    using live = new Stream();
    const borrowed = Stream.fromHandle(live.handle);
    expect(asked()).toBe(before);
    expect(borrowed.device).toBe(0);
    borrowed.synchronize();
    expect(asked()).toBe(before + 1);
  });

  it('options are checked', () => {
    expect(thrown(() => new Stream({ nonBlocking: 1 as never })).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => new Stream({ priority: 0.5 })).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => new Stream(null as never)).code).toBe('ERR_INVALID_ARG_TYPE');
  });

  it('a disposed stream cannot be used, but disposing the default streams does nothing', () => {
    const stream = new Stream();
    stream[Symbol.dispose]();
    stream[Symbol.dispose]();
    const error = thrown(() => stream.synchronize());
    expect(error).toBeInstanceOf(RMMError);
    expect(error.code).toBe('ERR_RMM_DISPOSED');
    DEFAULT_STREAM[Symbol.dispose]();
    expect(DEFAULT_STREAM.handle).toBe(0n);
  });

  it('a buffer keeps its stream alive after the stream is disposed', () => {
    const stream = new Stream();
    const buffer = new DeviceBuffer({ data: pattern(64, 1), stream });
    stream[Symbol.dispose]();
    expectBytes(buffer.toBytes(buffer.stream === stream ? undefined : stream), pattern(64, 1));
    expect(thrown(() => buffer.toBytes(stream)).code).toBe('ERR_RMM_DISPOSED');
    buffer.free(); // deallocates on the stream the buffer kept alive
  });
});

describe('CudaStreamPool', () => {
  it('hands out its streams round-robin', () => {
    const pool = new CudaStreamPool({ poolSize: 3 });
    expect(pool.getPoolSize()).toBe(3);
    const first = [pool.getStream(), pool.getStream(), pool.getStream()];
    expect(new Set(first.map((s) => s.handle)).size).toBe(3);
    expect(pool.getStream()).toBe(first[0]);
    expect(pool.getStream(1)).toBe(first[1]);
    expect(pool.getStream(5)).toBe(first[2]);
    pool[Symbol.dispose]();
  });

  it('defaults to 16 streams', () => {
    using pool = new CudaStreamPool();
    expect(pool.getPoolSize()).toBe(16);
  });

  it('a pool of 0 streams is an error', () => {
    const error = thrown(() => new CudaStreamPool({ poolSize: 0 }));
    expect(error).toBeInstanceOf(RMMError);
    expect(error.code).toBe('ERR_RMM_LOGIC');
    expect(error.message).toBe('Stream pool size must be greater than zero');
    expect(thrown(() => new CudaStreamPool({ poolSize: -1 })).code).toBe('ERR_OUT_OF_RANGE');
  });
});
