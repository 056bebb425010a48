// Stream order, as RMM: the default streams use the calling thread's arena, every other stream an
// arena of its own; memory freed on a stream is reused on it at once and by other streams only
// after they wait for it: on the event of the freeing stream where the memory went through the
// global arena (RMM synchronises the stream instead), after a synchronisation where it is freed
// into another arena. On the fake driver the driver calls are counted.
import { DEFAULT_STREAM, DeviceBuffer, LEGACY_DEFAULT_STREAM, PER_THREAD_DEFAULT_STREAM, Stream } from '@rmmjs/core';
import { ArenaMemoryResource, arenaSummary } from '@rmmjs/arena';
import { KiB, MiB, disposeAfterEach, expectBytes, onFake, pattern } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';
import { callsDuring, expectCalls, offset, upstreamCases } from './upstreams.js';

describe.each(upstreamCases)('ArenaMemoryResource streams over $name', ({ make }) => {
  const keep = disposeAfterEach();
  const arena = (arenaSize: number) => keep(new ArenaMemoryResource(keep(make()), { arenaSize }));
  const stream = () => keep(new Stream());

  it('memory freed on a stream is reused on that stream at once, without synchronising', () => {
    const mr = arena(4 * MiB);
    const s = stream();
    const p = mr.allocate(1000, s);
    let again = 0n;
    const calls = callsDuring(() => {
      mr.deallocate(p, 1000, s);
      again = mr.allocate(1000, s);
    });
    expect(again).toBe(p);
    // A free on a stream records the arena's event (the only driver call).
    expectCalls(calls, { cuStreamSynchronize: 0, cuEventRecord: 1, cuEventSynchronize: 0, cuStreamWaitEvent: 0 });
    mr.deallocate(again, 1000, s);
    expect(arenaSummary(mr)).toMatchObject({ threadArenas: 0, streamArenas: 1 });
  });

  it('each stream has an arena of its own: no superblock is shared', () => {
    const mr = arena(4 * MiB);
    const streams = [stream(), stream(), stream()];
    const blocks = streams.map((s) => mr.allocate(1000, s));
    expect(blocks.map((p) => offset(p, blocks[0]))).toEqual([0, MiB, 2 * MiB]);
    streams.forEach((s, i) => mr.deallocate(blocks[i], 1000, s));
    // Freed on its own stream, a block is not handed to another stream's allocation.
    const other = mr.allocate(1000, stream());
    expect(offset(other, blocks[0])).toBe(3 * MiB);
    expect(arenaSummary(mr)).toMatchObject({ threadArenas: 0, streamArenas: 4, globalSuperblocks: 0 });
  });

  it("another stream gets it after a defragmentation, waiting on the freeing stream's event", () => {
    const mr = arena(2 * MiB);
    const a = stream();
    const b = stream();
    const p = mr.allocate(1000, a);
    mr.deallocate(p, 1000, a);
    const first = mr.allocate(MiB, b);
    expect(offset(first, p)).toBe(MiB);
    let second = 0n;
    const calls = callsDuring(() => {
      second = mr.allocate(MiB, b);
    });
    expect(second).toBe(p);
    expectCalls(calls, { cuStreamSynchronize: 0, cuEventRecord: 0, cuEventSynchronize: 0, cuStreamWaitEvent: 1 });
    mr.deallocate(first, MiB, b);
    mr.deallocate(second, MiB, b);
  });

  it("a free on another stream (into another stream's arena) synchronises that stream first", () => {
    const mr = arena(4 * MiB);
    const a = stream();
    const b = stream();
    const p = mr.allocate(1000, a);
    const calls = callsDuring(() => mr.deallocate(p, 1000, b));
    expectCalls(calls, { cuStreamSynchronize: 1, cuEventRecord: 0, cuEventSynchronize: 0, cuStreamWaitEvent: 0 });
    expect(mr.allocate(1000, a)).toBe(p);
    mr.deallocate(p, 1000, a);
  });

  it("a block over 1 MiB is freed without synchronising: another stream waits on its stream's event", () => {
    const mr = arena(4 * MiB);
    const a = stream();
    const p = mr.allocate(2 * MiB, a);
    const free = callsDuring(() => mr.deallocate(p, 2 * MiB, a));
    expectCalls(free, { cuStreamSynchronize: 0, cuEventRecord: 1, cuEventSynchronize: 0, cuStreamWaitEvent: 0 });
    let q = 0n;
    const take = callsDuring(() => {
      q = mr.allocate(2 * MiB, stream());
    });
    expect(q).toBe(p);
    expectCalls(take, { cuStreamSynchronize: 0, cuEventRecord: 0, cuEventSynchronize: 0, cuStreamWaitEvent: 1 });
    mr.deallocate(q, 2 * MiB);
  });

  it('a block over 1 MiB freed on a stream is reused on that stream without a wait', () => {
    const mr = arena(4 * MiB);
    const a = stream();
    const p = mr.allocate(3 * MiB, a);
    mr.deallocate(p, 3 * MiB, a);
    let q = 0n;
    const calls = callsDuring(() => {
      q = mr.allocate(2 * MiB, a);
    });
    expect(q).toBe(p);
    expectCalls(calls, { cuStreamSynchronize: 0, cuEventRecord: 0, cuEventSynchronize: 0, cuStreamWaitEvent: 0 });
    mr.deallocate(q, 2 * MiB, a);
  });

  it('the legacy default stream frees large blocks with no driver call; its event is recorded when another stream takes one', () => {
    const mr = arena(8 * MiB);
    const p = mr.allocate(2 * MiB);
    const q = mr.allocate(3 * MiB, LEGACY_DEFAULT_STREAM);
    const free = callsDuring(() => {
      mr.deallocate(p, 2 * MiB);
      mr.deallocate(q, 3 * MiB, LEGACY_DEFAULT_STREAM);
    });
    expectCalls(free, { cuStreamSynchronize: 0, cuEventRecord: 0, cuEventSynchronize: 0, cuStreamWaitEvent: 0 });
    // The same stream (0 and CU_STREAM_LEGACY are one) takes them back without a wait.
    const same = callsDuring(() => {
      expect(mr.allocate(2 * MiB, LEGACY_DEFAULT_STREAM)).toBe(p);
      mr.deallocate(p, 2 * MiB);
    });
    expectCalls(same, { cuStreamSynchronize: 0, cuEventRecord: 0, cuEventSynchronize: 0, cuStreamWaitEvent: 0 });
    const s = stream();
    const take = callsDuring(() => {
      expect(mr.allocate(5 * MiB, s)).toBe(p);
    });
    expectCalls(take, { cuStreamSynchronize: 0, cuEventRecord: 1, cuEventSynchronize: 0, cuStreamWaitEvent: 1 });
    mr.deallocate(p, 5 * MiB, s);
  });

  it('a superblock carries the events of every stream that freed into it', () => {
    const mr = arena(4 * MiB);
    const [a, b, c] = [stream(), stream(), stream()];
    const p = mr.allocate(2 * MiB, a);
    const q = mr.allocate(2 * MiB, b);
    expect(offset(q, p)).toBe(2 * MiB);
    mr.deallocate(p, 2 * MiB, a);
    mr.deallocate(q, 2 * MiB, b);
    // The two freed superblocks merge: a stream taking the whole waits for both frees, one freeing
    // stream only for the other's.
    const onC = callsDuring(() => {
      expect(mr.allocate(4 * MiB, c)).toBe(p);
    });
    expectCalls(onC, { cuStreamSynchronize: 0, cuEventRecord: 0, cuEventSynchronize: 0, cuStreamWaitEvent: 2 });
    mr.deallocate(p, 4 * MiB, c);
    const onA = callsDuring(() => {
      expect(mr.allocate(4 * MiB, a)).toBe(p);
    });
    // c waited for a and b before its own free: c's event covers them (the superblock was taken whole).
    expectCalls(onA, { cuStreamSynchronize: 0, cuEventRecord: 0, cuEventSynchronize: 0, cuStreamWaitEvent: 1 });
    mr.deallocate(p, 4 * MiB, a);
  });

  it('the three default streams share the calling thread arena', () => {
    const mr = arena(4 * MiB);
    const p = mr.allocate(1000, PER_THREAD_DEFAULT_STREAM);
    const calls = callsDuring(() => mr.deallocate(p, 1000, DEFAULT_STREAM));
    expectCalls(calls, { cuStreamSynchronize: 0, cuEventRecord: 0, cuEventSynchronize: 0, cuStreamWaitEvent: 0 });
    expect(mr.allocate(1000, LEGACY_DEFAULT_STREAM)).toBe(p);
    expect(mr.allocate(1000)).toBe(p + BigInt(KiB));
    expect(arenaSummary(mr)).toMatchObject({ threadArenas: 1, streamArenas: 0 });
    mr.deallocate(p, 1000, LEGACY_DEFAULT_STREAM);
    mr.deallocate(p + BigInt(KiB), 1000);
  });

  it.each([
    [
      "the legacy default stream's event is recorded then",
      DEFAULT_STREAM,
      { cuStreamSynchronize: 0, cuEventRecord: 1, cuEventSynchronize: 0, cuStreamWaitEvent: 1 },
    ],
    [
      "the per-thread default stream's event was recorded at the free",
      PER_THREAD_DEFAULT_STREAM,
      { cuStreamSynchronize: 0, cuEventRecord: 0, cuEventSynchronize: 0, cuStreamWaitEvent: 1 },
    ],
  ])(
    "a stream that takes a thread arena's superblock after a defragmentation waits for its frees: %s",
    (_name, s, expected) => {
      const mr = arena(4 * MiB);
      const p = mr.allocate(1000, s);
      mr.deallocate(p, 1000, s);
      let all = 0n;
      const calls = callsDuring(() => {
        all = mr.allocate(4 * MiB, stream());
      });
      expect(all).toBe(p);
      expectCalls(calls, expected);
      mr.deallocate(all, 4 * MiB);
    },
  );

  it("RMM DeletedStream: a new stream that gets a destroyed stream's handle has an arena of its own", () => {
    const mr = arena(4 * MiB);
    const old = new Stream();
    const handle = old.handle;
    const buffer = new DeviceBuffer({ data: pattern(1000, 1), mr, stream: old });
    const ptr = buffer.ptr;
    buffer.free();
    old[Symbol.dispose]();
    const fresh = stream();
    const again = new DeviceBuffer({ data: pattern(1000, 2), mr, stream: fresh });
    expectBytes(again.toBytes(fresh), pattern(1000, 2));
    if (onFake()) {
      // The fake driver hands a destroyed stream's handle to the next stream, as the driver may.
      // The old stream's arena (its free may still be in flight) is not the new stream's.
      expect(fresh.handle).toBe(handle);
      expect(offset(again.ptr, ptr)).toBe(MiB);
      expect(arenaSummary(mr)).toMatchObject({ threadArenas: 0, streamArenas: 2 });
    }
    again.free();
    // As in RMM's test: the default stream allocates after the stream is gone.
    const onDefault = mr.allocate(1000);
    mr.deallocate(onDefault, 1000);
    // Every superblock goes back when the whole arena is needed, the destroyed stream's included,
    // and the default stream waits for the frees on both streams (the destroyed one's event
    // outlives it); its own frees need no wait.
    let all = 0n;
    const calls = callsDuring(() => {
      all = mr.allocate(4 * MiB);
    });
    expect(all).toBe(ptr);
    expectCalls(calls, { cuStreamSynchronize: 0, cuEventRecord: 0, cuEventSynchronize: 0, cuStreamWaitEvent: 2 });
    mr.deallocate(all, 4 * MiB);
  });

  it('RMM PerThreadToStreamDealloc: a block whose superblock moved to a stream arena is still freed', () => {
    const mr = arena(2 * MiB);
    const threadPtr = mr.allocate(256, PER_THREAD_DEFAULT_STREAM);
    const s = stream();
    const p = mr.allocate(32 * KiB, s);
    mr.deallocate(p, 32 * KiB, s);
    // The global arena is empty: the next allocation defragments (both superblocks go back),
    // and the second one takes the thread arena's old superblock into the other stream's arena.
    const other = stream();
    const p1 = mr.allocate(MiB, other);
    const p2 = mr.allocate(32 * KiB, other);
    expect(p1).toBe(p);
    expect(offset(p2, threadPtr)).toBe(256);
    const calls = callsDuring(() => mr.deallocate(threadPtr, 256, PER_THREAD_DEFAULT_STREAM));
    expectCalls(calls, { cuStreamSynchronize: 1, cuEventRecord: 0, cuEventSynchronize: 0, cuStreamWaitEvent: 0 });
    mr.deallocate(p1, MiB, other);
    mr.deallocate(p2, 32 * KiB, other);
    const all = mr.allocate(2 * MiB);
    expect(all).toBe(threadPtr);
    mr.deallocate(all, 2 * MiB);
  });
});
