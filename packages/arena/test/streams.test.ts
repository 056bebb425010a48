// Stream order, as RMM: the default streams use the calling thread's arena, every other stream an
// arena of its own; memory freed on a stream is reused on it at once and by other streams only
// after synchronisation. On the fake driver the synchronisations are counted.
import { DEFAULT_STREAM, DeviceBuffer, LEGACY_DEFAULT_STREAM, PER_THREAD_DEFAULT_STREAM, Stream } from '@rmmjs/core';
import { ArenaMemoryResource, arenaSummary } from '@rmmjs/arena';
import { KiB, MiB, disposeAfterEach, expectBytes, fakeCuda, onFake, pattern } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';
import { offset, upstreamCases } from './upstreams.js';

/** Driver calls made while fn runs (all zero off the fake driver). */
function callsDuring(fn: () => void, symbols = ['cuStreamSynchronize', 'cuEventRecord', 'cuEventSynchronize']) {
  const before = onFake() ? fakeCuda.stats().calls : {};
  fn();
  const after = onFake() ? fakeCuda.stats().calls : {};
  return Object.fromEntries(symbols.map((symbol) => [symbol, (after[symbol] ?? 0) - (before[symbol] ?? 0)]));
}

const expectCalls = (actual: Record<string, number>, expected: Record<string, number>) => {
  if (onFake()) expect(actual).toEqual(expected);
};

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
    expectCalls(calls, { cuStreamSynchronize: 0, cuEventRecord: 1, cuEventSynchronize: 0 });
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

  it('another stream gets it after synchronisation: a defragmentation waits for the freeing stream', () => {
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
    expectCalls(calls, { cuStreamSynchronize: 0, cuEventRecord: 0, cuEventSynchronize: 1 });
    mr.deallocate(first, MiB, b);
    mr.deallocate(second, MiB, b);
  });

  it('a free on another stream synchronises that stream first', () => {
    const mr = arena(4 * MiB);
    const a = stream();
    const b = stream();
    const p = mr.allocate(1000, a);
    const calls = callsDuring(() => mr.deallocate(p, 1000, b));
    expectCalls(calls, { cuStreamSynchronize: 1, cuEventRecord: 0, cuEventSynchronize: 0 });
    expect(mr.allocate(1000, a)).toBe(p);
    mr.deallocate(p, 1000, a);
  });

  it('a block over 1 MiB is freed after its stream synchronises, then any stream reuses it', () => {
    const mr = arena(4 * MiB);
    const a = stream();
    const p = mr.allocate(2 * MiB, a);
    const calls = callsDuring(() => mr.deallocate(p, 2 * MiB, a));
    expectCalls(calls, { cuStreamSynchronize: 1, cuEventRecord: 0, cuEventSynchronize: 0 });
    const q = mr.allocate(2 * MiB, stream());
    expect(q).toBe(p);
    mr.deallocate(q, 2 * MiB);
  });

  it('the three default streams share the calling thread arena', () => {
    const mr = arena(4 * MiB);
    const p = mr.allocate(1000, PER_THREAD_DEFAULT_STREAM);
    const calls = callsDuring(() => mr.deallocate(p, 1000, DEFAULT_STREAM));
    expectCalls(calls, { cuStreamSynchronize: 0, cuEventRecord: 0, cuEventSynchronize: 0 });
    expect(mr.allocate(1000, LEGACY_DEFAULT_STREAM)).toBe(p);
    expect(mr.allocate(1000)).toBe(p + BigInt(KiB));
    expect(arenaSummary(mr)).toMatchObject({ threadArenas: 1, streamArenas: 0 });
    mr.deallocate(p, 1000, LEGACY_DEFAULT_STREAM);
    mr.deallocate(p + BigInt(KiB), 1000);
  });

  it.each([
    [
      'the legacy default stream is synchronised',
      DEFAULT_STREAM,
      { cuStreamSynchronize: 1, cuEventRecord: 0, cuEventSynchronize: 0 },
    ],
    [
      'the per-thread default stream is waited for through an event',
      PER_THREAD_DEFAULT_STREAM,
      { cuStreamSynchronize: 0, cuEventRecord: 0, cuEventSynchronize: 1 },
    ],
  ])("before a defragmentation moves a thread arena's frees on: %s", (_name, s, expected) => {
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
  });

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
    // after waiting for the frees on it (its event outlives it).
    let all = 0n;
    const calls = callsDuring(() => {
      all = mr.allocate(4 * MiB);
    });
    expect(all).toBe(ptr);
    expectCalls(calls, { cuStreamSynchronize: 1, cuEventRecord: 0, cuEventSynchronize: 2 });
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
    expectCalls(calls, { cuStreamSynchronize: 1, cuEventRecord: 0, cuEventSynchronize: 0 });
    mr.deallocate(p1, MiB, other);
    mr.deallocate(p2, 32 * KiB, other);
    const all = mr.allocate(2 * MiB);
    expect(all).toBe(threadPtr);
    mr.deallocate(all, 2 * MiB);
  });
});
