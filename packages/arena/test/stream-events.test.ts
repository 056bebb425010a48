// Memory that goes back to the global arena carries the events of the streams that freed it (RMM
// synchronises those streams instead): no free waits for its stream, and a failed record or wait
// falls back to waiting on the host, loses nothing, and fails the call only when that fails too.
import { CudaError, CudaMemoryResource, LEGACY_DEFAULT_STREAM, PER_THREAD_DEFAULT_STREAM, Stream } from '@rmmjs/core';
import { ArenaMemoryResource, arenaSummary } from '@rmmjs/arena';
import { MiB, disposeAfterEach, fakeCuda, onFake, random, thrown } from '@rmmjs/test-helpers';
import { afterEach, describe, expect, it } from 'vitest';
import { callsDuring, expectCalls, upstreamCases } from './upstreams.js';

const none = { cuStreamSynchronize: 0, cuEventRecord: 0, cuEventSynchronize: 0, cuStreamWaitEvent: 0 };

describe.each(upstreamCases)('ArenaMemoryResource stream events over $name', ({ make }) => {
  const keep = disposeAfterEach();
  const arena = (arenaSize: number) => keep(new ArenaMemoryResource(keep(make()), { arenaSize }));

  it('a random workload on the default stream makes no driver call', () => {
    const mr = arena(128 * MiB);
    const next = random(7);
    const live: [bigint, number][] = [];
    const calls = callsDuring(() => {
      for (let step = 0; step < 3000; step++) {
        if (live.length > 0 && (live.length >= 12 || next() < 0.5)) {
          const at = Math.floor(next() * live.length);
          const [ptr, size] = live[at];
          mr.deallocate(ptr, size);
          live[at] = live[live.length - 1];
          live.pop();
        } else {
          const size = 1 + Math.floor(next() * 4 * MiB);
          live.push([mr.allocate(size), size]);
        }
      }
    });
    for (const [ptr, size] of live) mr.deallocate(ptr, size);
    expectCalls(calls, none);
    // Nothing was lost: the whole arena is one block again.
    mr.deallocate(mr.allocate(128 * MiB), 128 * MiB);
  });

  it('a large block freed on the per-thread default stream: its event is recorded at the free, and the legacy stream waits on it', () => {
    const mr = arena(4 * MiB);
    const p = mr.allocate(2 * MiB, PER_THREAD_DEFAULT_STREAM);
    const free = callsDuring(() => mr.deallocate(p, 2 * MiB, PER_THREAD_DEFAULT_STREAM));
    expectCalls(free, { ...none, cuEventRecord: 1 });
    let q = 0n;
    const take = callsDuring(() => {
      q = mr.allocate(2 * MiB, LEGACY_DEFAULT_STREAM);
    });
    expect(q).toBe(p);
    expectCalls(take, { ...none, cuStreamWaitEvent: 1 });
    mr.deallocate(q, 2 * MiB);
  });
});

describe.runIf(onFake())('stream event failures (fake driver)', () => {
  const keep = disposeAfterEach();
  const arena = (arenaSize: number) => keep(new ArenaMemoryResource(keep(new CudaMemoryResource()), { arenaSize }));
  const stream = () => keep(new Stream());
  afterEach(() => fakeCuda.clearFaults());

  it.each(['cuEventCreate', 'cuEventRecord'])(
    'a large free whose %s fails synchronises its stream instead, and nobody waits for it later',
    (symbol) => {
      const mr = arena(4 * MiB);
      const s = stream();
      const p = mr.allocate(2 * MiB, s);
      fakeCuda.failNext(symbol, 1, 'CUDA_ERROR_INVALID_VALUE');
      const free = callsDuring(() => mr.deallocate(p, 2 * MiB, s));
      expect(free).toEqual({ ...none, cuEventRecord: symbol === 'cuEventRecord' ? 1 : 0, cuStreamSynchronize: 1 });
      let q = 0n;
      const take = callsDuring(() => {
        q = mr.allocate(2 * MiB, stream());
      });
      expect(q).toBe(p);
      expect(take).toEqual(none);
      mr.deallocate(q, 2 * MiB);
    },
  );

  it('a large free whose record and synchronisation both fail: CudaError, and the block stays allocated', () => {
    const mr = arena(4 * MiB);
    const s = stream();
    const p = mr.allocate(2 * MiB, s);
    fakeCuda.failNext('cuEventRecord', 1, 'CUDA_ERROR_LAUNCH_FAILED');
    fakeCuda.failNext('cuStreamSynchronize', 1, 'CUDA_ERROR_LAUNCH_FAILED');
    const error = thrown(() => mr.deallocate(p, 2 * MiB, s));
    expect(error).toBeInstanceOf(CudaError);
    expect(error.code).toBe('ERR_CUDA');
    expect(error.message).toContain('cuStreamSynchronize');
    expect(arenaSummary(mr)).toMatchObject({ globalFreeBytes: 2 * MiB });
    expect(thrown(() => mr.allocate(4 * MiB)).code).toBe('ERR_RMM_OUT_OF_MEMORY');
    mr.deallocate(p, 2 * MiB, s);
    expect(mr.allocate(4 * MiB, s)).toBe(p);
    mr.deallocate(p, 4 * MiB, s);
  });

  it("a free whose stream's id cannot be read: CudaError, and the block stays allocated", () => {
    const mr = arena(4 * MiB);
    const s = stream();
    const p = mr.allocate(2 * MiB, s);
    fakeCuda.failNext('cuStreamGetId', 1, 'CUDA_ERROR_INVALID_HANDLE');
    expect(thrown(() => mr.deallocate(p, 2 * MiB, s))).toBeInstanceOf(CudaError);
    expect(arenaSummary(mr)).toMatchObject({ globalFreeBytes: 2 * MiB });
    mr.deallocate(p, 2 * MiB, s);
    expect(arenaSummary(mr)).toMatchObject({ globalFreeBytes: 4 * MiB });
  });

  it('a failed wait for a large block: the calling thread waits on the event instead', () => {
    const mr = arena(4 * MiB);
    const s = stream();
    const p = mr.allocate(2 * MiB, s);
    mr.deallocate(p, 2 * MiB, s);
    fakeCuda.failNext('cuStreamWaitEvent', 1, 'CUDA_ERROR_INVALID_VALUE');
    let q = 0n;
    const take = callsDuring(() => {
      q = mr.allocate(2 * MiB, stream());
    });
    expect(q).toBe(p);
    expect(take).toEqual({ ...none, cuStreamWaitEvent: 1, cuEventSynchronize: 1 });
    mr.deallocate(q, 2 * MiB);
  });

  it("the legacy stream's event record fails when another stream takes its block: the legacy stream is synchronised instead", () => {
    const mr = arena(4 * MiB);
    const p = mr.allocate(2 * MiB);
    mr.deallocate(p, 2 * MiB);
    fakeCuda.failNext('cuEventRecord', 1, 'CUDA_ERROR_INVALID_VALUE');
    let q = 0n;
    const take = callsDuring(() => {
      q = mr.allocate(2 * MiB, stream());
    });
    expect(q).toBe(p);
    expect(take).toEqual({ ...none, cuEventRecord: 1, cuStreamSynchronize: 1 });
    mr.deallocate(q, 2 * MiB);
  });

  it('a failed wait and a failed event synchronisation for a large block: CudaError, and the block goes back', () => {
    const mr = arena(4 * MiB);
    const s = stream();
    const p = mr.allocate(2 * MiB, s);
    mr.deallocate(p, 2 * MiB, s);
    const other = stream();
    fakeCuda.failNext('cuStreamWaitEvent', 1, 'CUDA_ERROR_LAUNCH_FAILED');
    fakeCuda.failNext('cuEventSynchronize', 1, 'CUDA_ERROR_LAUNCH_FAILED');
    const error = thrown(() => mr.allocate(2 * MiB, other));
    expect(error).toBeInstanceOf(CudaError);
    expect(error.message).toContain('cuEventSynchronize');
    expect(arenaSummary(mr)).toMatchObject({ globalSuperblocks: 1, globalFreeBytes: 4 * MiB });
    // Still freed on s: the retry waits again.
    let q = 0n;
    const retry = callsDuring(() => {
      q = mr.allocate(2 * MiB, other);
    });
    expect(q).toBe(p);
    expect(retry).toEqual({ ...none, cuStreamWaitEvent: 1 });
    mr.deallocate(q, 2 * MiB, other);
  });

  it('a superblock an arena cannot order its stream after goes back to the global arena, still freed on its stream', () => {
    const mr = arena(MiB);
    const a = stream();
    const b = stream();
    const p = mr.allocate(1000, a);
    mr.deallocate(p, 1000, a);
    fakeCuda.failNext('cuStreamWaitEvent', 1, 'CUDA_ERROR_LAUNCH_FAILED');
    fakeCuda.failNext('cuEventSynchronize', 1, 'CUDA_ERROR_LAUNCH_FAILED');
    expect(thrown(() => mr.allocate(1000, b))).toBeInstanceOf(CudaError);
    expect(arenaSummary(mr)).toMatchObject({ globalSuperblocks: 1, globalFreeBytes: MiB });
    let q = 0n;
    const retry = callsDuring(() => {
      q = mr.allocate(1000, b);
    });
    expect(q).toBe(p);
    expect(retry).toEqual({ ...none, cuStreamWaitEvent: 1 });
    mr.deallocate(q, 1000, b);
  });

  it('disposing waits for the frees still in flight, then destroys the events', () => {
    const baseline = fakeCuda.stats().liveEvents;
    const mr = new ArenaMemoryResource(new CudaMemoryResource(), { arenaSize: 8 * MiB });
    const s = new Stream();
    const onStream = mr.allocate(2 * MiB, s);
    const onDefault = mr.allocate(2 * MiB);
    const small = mr.allocate(1000, s);
    mr.deallocate(onStream, 2 * MiB, s);
    mr.deallocate(onDefault, 2 * MiB);
    mr.deallocate(small, 1000, s);
    expect(fakeCuda.stats().liveEvents).toBe(baseline + 1);
    const dispose = callsDuring(() => mr[Symbol.dispose]());
    // s's event once (its large and small frees), the legacy stream once.
    expect(dispose).toEqual({ ...none, cuEventSynchronize: 1, cuStreamSynchronize: 1 });
    s[Symbol.dispose]();
    expect(fakeCuda.stats().liveEvents).toBe(baseline);
  });
});
