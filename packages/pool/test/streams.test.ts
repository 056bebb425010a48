// Stream-ordered reuse: memory freed on a stream is reused on it at once, and on another stream
// only after that stream waits on an event recorded on the first (counted through the fake driver).
import {
  CudaError,
  DEFAULT_STREAM,
  DeviceBuffer,
  getCurrentDeviceResource,
  LEGACY_DEFAULT_STREAM,
  PER_THREAD_DEFAULT_STREAM,
  Stream,
} from '@rmmjs/core';
import { PoolMemoryResource } from '@rmmjs/pool';
import { expectBytes, fakeCuda, onFake, pattern, random, thrown } from '@rmmjs/test-helpers';
import { afterEach, describe, expect, it } from 'vitest';

const MiB = 1 << 20;
const base = () => getCurrentDeviceResource();

/** Driver calls made by fn, by symbol (empty off the fake driver). */
function callsDuring(fn: () => void): Record<string, number> {
  if (!onFake()) {
    fn();
    return {};
  }
  const before = fakeCuda.stats().calls;
  fn();
  const after = fakeCuda.stats().calls;
  return Object.fromEntries(Object.keys(after).map((symbol) => [symbol, after[symbol] - before[symbol]]));
}

describe('PoolMemoryResource streams', () => {
  afterEach(() => {
    if (onFake()) fakeCuda.clearFaults();
  });

  it('memory freed on a stream is reused on that stream at once, without waiting', () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 0 });
    using a = new Stream();
    const ptr = pool.allocate(MiB, a);
    const free = callsDuring(() => pool.deallocate(ptr, MiB, a));
    let again = 0n;
    const reuse = callsDuring(() => (again = pool.allocate(MiB, a)));
    expect(again).toBe(ptr);
    if (onFake()) {
      expect(free.cuEventRecord).toBe(1); // recorded at once: the stream may be gone later
      expect(free.cuStreamGetId).toBe(1); // created streams are told apart by id, not handle
      expect(reuse.cuStreamWaitEvent).toBe(0);
      expect(reuse.cuEventRecord).toBe(0);
    }
  });

  it('a stream wrapped twice (Stream.fromHandle) is one stream', () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 0 });
    using a = new Stream();
    const ptr = pool.allocate(MiB, a);
    pool.deallocate(ptr, MiB, a);
    const again = Stream.fromHandle(a.handle);
    let taken = 0n;
    const calls = callsDuring(() => (taken = pool.allocate(MiB, again)));
    expect(taken).toBe(ptr);
    if (onFake()) expect(calls.cuStreamWaitEvent).toBe(0);
  });

  it("another stream takes a block freed on stream A after waiting on A's event", () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 0 });
    using a = new Stream();
    using b = new Stream({ nonBlocking: true });
    const ptr = pool.allocate(MiB, a);
    pool.deallocate(ptr, MiB, a);
    let taken = 0n;
    const calls = callsDuring(() => (taken = pool.allocate(MiB, b)));
    expect(taken).toBe(ptr);
    expect(pool.poolSize()).toBe(MiB);
    if (onFake()) {
      expect(calls.cuStreamWaitEvent).toBe(1);
      expect(calls.cuEventRecord).toBe(0);
    }
  });

  it('each stream uses its own free blocks first', () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 0 });
    using a = new Stream();
    using b = new Stream();
    const onA = pool.allocate(MiB, a);
    const onB = pool.allocate(MiB, b);
    expect(pool.poolSize()).toBe(2 * MiB);
    pool.deallocate(onA, MiB, a);
    pool.deallocate(onB, MiB, b);
    const calls = callsDuring(() => {
      expect(pool.allocate(MiB, b)).toBe(onB);
      expect(pool.allocate(MiB, a)).toBe(onA);
    });
    if (onFake()) expect(calls.cuStreamWaitEvent).toBe(0);
  });

  it('the default stream records its event only when another stream takes its blocks', () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 0 });
    using b = new Stream();
    const ptr = pool.allocate(MiB);
    const free = callsDuring(() => pool.deallocate(ptr, MiB));
    let taken = 0n;
    const take = callsDuring(() => (taken = pool.allocate(MiB, b)));
    expect(taken).toBe(ptr);
    if (onFake()) {
      expect(free.cuEventRecord).toBe(0);
      expect(free.cuStreamGetId).toBe(0);
      expect(take.cuEventRecord).toBe(1);
      expect(take.cuStreamWaitEvent).toBe(1);
    }
  });

  it("the default stream's event is recorded once for all blocks freed since the last record", () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 0 });
    using b = new Stream();
    const ptrs = [pool.allocate(MiB), pool.allocate(MiB), pool.allocate(4 * MiB)];
    pool.deallocate(ptrs[0], MiB);
    pool.deallocate(ptrs[1], MiB);
    // Both freed blocks, lower address first (which one that is depends on the upstream's heap).
    const taken: bigint[] = [];
    const take = callsDuring(() => taken.push(pool.allocate(MiB, b), pool.allocate(MiB, b)));
    const ascending = (x: bigint, y: bigint) => (x < y ? -1 : x > y ? 1 : 0);
    expect(taken).toEqual([ptrs[0], ptrs[1]].sort(ascending));
    pool.deallocate(ptrs[2], 4 * MiB);
    const again = callsDuring(() => expect(pool.allocate(4 * MiB, b)).toBe(ptrs[2]));
    if (onFake()) {
      expect([take.cuEventCreate, take.cuEventRecord, take.cuStreamWaitEvent]).toEqual([1, 1, 2]);
      expect([again.cuEventCreate, again.cuEventRecord, again.cuStreamWaitEvent]).toEqual([0, 1, 1]);
    }
  });

  it('blocks no stream has used yet (the initial pool) are taken without a wait', () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: MiB });
    using b = new Stream();
    let taken = 0n;
    const calls = callsDuring(() => (taken = pool.allocate(1000, b)));
    expect(taken).not.toBe(0n);
    expect(pool.poolSize()).toBe(MiB);
    if (onFake()) expect([calls.cuEventRecord, calls.cuStreamWaitEvent]).toEqual([0, 0]);
  });

  it("lists merged onto the default stream's are ordered for the next stream that takes from it", () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 2 * MiB, maximumPoolSize: 2 * MiB });
    using a = new Stream();
    using b = new Stream();
    using c = new Stream();
    const onA = pool.allocate(MiB, a);
    const onB = pool.allocate(MiB, b);
    pool.deallocate(onA, MiB, a);
    pool.deallocate(onB, MiB, b);
    let front = 0n;
    const merge = callsDuring(() => (front = pool.allocate(1.5 * MiB))); // merges a's and b's lists
    expect(front).toBe(onA);
    let taken = 0n;
    const take = callsDuring(() => (taken = pool.allocate(0.5 * MiB, c))); // the rest, from the default stream
    expect(taken).toBe(onA + BigInt(1.5 * MiB));
    expect(pool.poolSize()).toBe(2 * MiB);
    if (onFake()) {
      expect([merge.cuEventRecord, merge.cuStreamWaitEvent]).toEqual([0, 2]);
      expect([take.cuEventRecord, take.cuStreamWaitEvent]).toEqual([1, 1]);
    }
  });

  it('the list of a stream destroyed since merges with the others (its event, never the dead stream, is used)', () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 2 * MiB, maximumPoolSize: 2 * MiB });
    const a = new Stream();
    using b = new Stream();
    using c = new Stream();
    const onA = pool.allocate(MiB, a);
    const onB = pool.allocate(MiB, b);
    pool.deallocate(onA, MiB, a);
    a[Symbol.dispose]();
    pool.deallocate(onB, MiB, b);
    let whole = 0n;
    const calls = callsDuring(() => (whole = pool.allocate(2 * MiB, c)));
    expect(whole).toBe(onA);
    if (onFake()) expect([calls.cuStreamWaitEvent, calls.cuEventRecord]).toEqual([2, 2]); // c's own event, once per merge
    pool.deallocate(whole, 2 * MiB, c);
  });

  it('DEFAULT_STREAM and LEGACY_DEFAULT_STREAM share one free list', () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 0 });
    const ptr = pool.allocate(MiB, DEFAULT_STREAM);
    pool.deallocate(ptr, MiB, DEFAULT_STREAM);
    let taken = 0n;
    const calls = callsDuring(() => (taken = pool.allocate(MiB, LEGACY_DEFAULT_STREAM)));
    expect(taken).toBe(ptr);
    if (onFake()) expect(calls.cuStreamWaitEvent).toBe(0);
  });

  it('the per-thread default stream records its event on every free', () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 0 });
    const ptr = pool.allocate(MiB, PER_THREAD_DEFAULT_STREAM);
    const free = callsDuring(() => pool.deallocate(ptr, MiB, PER_THREAD_DEFAULT_STREAM));
    expect(pool.allocate(MiB, PER_THREAD_DEFAULT_STREAM)).toBe(ptr);
    if (onFake()) expect(free.cuEventRecord).toBe(1);
  });

  it("when no single block fits, other streams' free lists merge so that adjacent blocks coalesce", () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 2 * MiB, maximumPoolSize: 2 * MiB });
    using a = new Stream();
    using b = new Stream();
    using c = new Stream();
    const onA = pool.allocate(MiB, a); // taken from the default stream's list (the initial block)
    const onB = pool.allocate(MiB, b);
    expect(onB).toBe(onA + BigInt(MiB));
    pool.deallocate(onA, MiB, a);
    pool.deallocate(onB, MiB, b);
    let whole = 0n;
    const calls = callsDuring(() => (whole = pool.allocate(2 * MiB, c)));
    expect(whole).toBe(onA);
    expect(pool.poolSize()).toBe(2 * MiB);
    if (onFake()) expect(calls.cuStreamWaitEvent).toBe(2);
  });

  it('RMM DeletedStream: blocks freed on a stream that is then destroyed are reused', () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 0 });
    const liveStreams = onFake() ? fakeCuda.stats().liveStreams : 0;
    const stream = new Stream();
    const buffer = new DeviceBuffer({ size: 10000, stream, mr: pool });
    const ptr = buffer.ptr;
    buffer.free();
    stream[Symbol.dispose]();
    if (onFake()) expect(fakeCuda.stats().liveStreams).toBe(liveStreams); // really destroyed
    expect(pool.allocate(10000)).toBe(ptr);
    using other = new Stream();
    pool.deallocate(ptr, 10000);
    expect(pool.allocate(10000, other)).toBe(ptr);
    expect(pool.poolSize()).toBe(10240);
  });

  it("a new stream, even with a destroyed stream's handle, does not inherit its free list: it waits first", () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 0 });
    const old = new Stream();
    const handle = old.handle;
    const buffer = new DeviceBuffer({ data: pattern(10000, 4), stream: old, mr: pool });
    const ptr = buffer.ptr;
    buffer.free();
    old[Symbol.dispose]();
    using fresh = new Stream();
    // The fake driver hands a destroyed stream's handle to the next stream, as the driver may.
    if (onFake()) expect(fresh.handle).toBe(handle);
    let taken = 0n;
    const calls = callsDuring(() => (taken = pool.allocate(10000, fresh)));
    expect(taken).toBe(ptr);
    if (onFake()) {
      expect(calls.cuStreamWaitEvent).toBe(1);
      expect(calls.cuEventRecord).toBe(0);
    }
    pool.deallocate(ptr, 10000, fresh);
    expect(pool.poolSize()).toBe(10240);
  });

  it('random workload over three streams: every buffer keeps its bytes', () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 64 * 1024, maximumPoolSize: 16 * MiB });
    using a = new Stream();
    using b = new Stream({ nonBlocking: true });
    const streams = [DEFAULT_STREAM, a, b];
    const next = random(11);
    const live: { buffer: DeviceBuffer; seed: number; stream: Stream }[] = [];
    const verifyAndFree = (at: number) => {
      const { buffer, seed, stream } = live[at];
      expectBytes(buffer.toBytes(stream), pattern(buffer.size, seed));
      buffer.free();
      live[at] = live[live.length - 1];
      live.pop();
    };
    for (let step = 0; step < 900; step++) {
      if (live.length > 0 && (live.length >= 48 || next() < 0.45)) {
        verifyAndFree(Math.floor(next() * live.length));
        continue;
      }
      const stream = streams[Math.floor(next() * streams.length)];
      const size = 1 + Math.floor(next() ** 2 * 128 * 1024);
      live.push({ buffer: new DeviceBuffer({ data: pattern(size, step), stream, mr: pool }), seed: step, stream });
    }
    while (live.length > 0) verifyAndFree(live.length - 1);
  });
});

describe.runIf(onFake())('PoolMemoryResource stream faults', () => {
  afterEach(() => fakeCuda.clearFaults());

  it('a failing event record fails the free, and the free can be retried', () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 0 });
    using a = new Stream();
    const ptr = pool.allocate(MiB, a);
    pool.deallocate(pool.allocate(MiB, a), MiB, a); // the stream's event exists
    fakeCuda.failNext('cuEventRecord', 1, 'CUDA_ERROR_INVALID_HANDLE');
    const error = thrown(() => pool.deallocate(ptr, MiB, a));
    expect(error).toBeInstanceOf(CudaError);
    expect(error.code).toBe('ERR_CUDA');
    expect(error.message).toContain('cuEventRecord');
    pool.deallocate(ptr, MiB, a);
    expect(pool.allocate(MiB, a)).toBe(ptr);
  });

  it('a failing event creation fails the free, and the free can be retried', () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 0 });
    using a = new Stream();
    const ptr = pool.allocate(MiB, a);
    fakeCuda.failNext('cuEventCreate', 1, 'CUDA_ERROR_OUT_OF_MEMORY');
    expect(thrown(() => pool.deallocate(ptr, MiB, a)).code).toBe('ERR_CUDA');
    pool.deallocate(ptr, MiB, a);
    expect(pool.allocate(MiB, a)).toBe(ptr);
  });

  it('a failing wait fails the allocation and leaves the block on the stream that freed it', () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 0 });
    using a = new Stream();
    using b = new Stream();
    const ptr = pool.allocate(MiB, a);
    pool.deallocate(ptr, MiB, a);
    fakeCuda.failNext('cuStreamWaitEvent', 1, 'CUDA_ERROR_INVALID_HANDLE');
    const error = thrown(() => pool.allocate(MiB, b));
    expect(error).toBeInstanceOf(CudaError);
    expect(error.message).toContain('cuStreamWaitEvent');
    expect(pool.allocate(MiB, a)).toBe(ptr);
    expect(pool.poolSize()).toBe(MiB);
  });

  it('events are destroyed with the pool', () => {
    const baseline = fakeCuda.stats().liveEvents;
    const pool = new PoolMemoryResource(base(), { initialPoolSize: 0 });
    const a = new Stream();
    const b = new Stream();
    pool.deallocate(pool.allocate(MiB, a), MiB, a);
    pool.deallocate(pool.allocate(MiB, b), MiB, b);
    expect(fakeCuda.stats().liveEvents).toBe(baseline + 2);
    pool[Symbol.dispose]();
    a[Symbol.dispose]();
    b[Symbol.dispose]();
    expect(fakeCuda.stats().liveEvents).toBe(baseline);
  });
});
