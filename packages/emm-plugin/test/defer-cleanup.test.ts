import { CudaError } from '@rmmjs/core';
import { fakeCuda, onFake, thrown } from '@rmmjs/test-helpers';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeDelta, fixtures } from './support.js';

describe('deferCleanup', () => {
  const { manager, tracked } = fixtures();
  const fake = fakeDelta();
  afterEach(() => {
    if (onFake()) {
      fakeCuda.clearFaults();
      expect(fake.now().allocations).toBe(0);
      expect(fake.now().registrations).toBe(0);
      fake.since();
    }
  });

  it('holds the releases of host and managed memory until the last scope closes', () => {
    const mgr = manager();
    const pinned = mgr.memhostalloc(256);
    const managed = mgr.memallocmanaged(256);
    const pin = mgr.mempin(new SharedArrayBuffer(256));
    const bytes = pinned.bytes;
    const outer = mgr.deferCleanup();
    const inner = mgr.deferCleanup();
    for (const memory of [pinned, managed, pin]) memory.free();
    // Unusable at once; the page-locked bytes are gone from JavaScript at once.
    expect([pinned.freed, managed.freed, pin.freed]).toEqual([true, true, true]);
    expect(bytes.length).toBe(0);
    if (onFake()) {
      expect(fake.now().allocations).toBe(2);
      expect(fake.now().registrations).toBe(1);
    }
    inner[Symbol.dispose]();
    if (onFake()) expect(fake.now().allocations).toBe(2);
    outer[Symbol.dispose]();
    outer[Symbol.dispose](); // closing a scope twice changes nothing
    if (onFake()) {
      expect(fake.now().allocations).toBe(0);
      expect(fake.now().registrations).toBe(0);
    }
  });

  it('gives device memory from memalloc back to its resource at once', () => {
    const tracking = tracked();
    const mgr = manager();
    const memory = mgr.memalloc(1000);
    mgr.deferCleanup(() => {
      memory.free();
      expect(tracking.getOutstandingAllocationCount()).toBe(0);
    });
  });

  it('runs a callback inside a scope and returns what it returns', () => {
    const mgr = manager();
    const pinned = mgr.memhostalloc(64);
    const result = mgr.deferCleanup(() => {
      pinned.free();
      if (onFake()) expect(fake.now().allocations).toBe(1);
      return 42;
    });
    expect(result).toBe(42);
    if (onFake()) expect(fake.now().allocations).toBe(0);
  });

  it('keeps the scope open until an async callback settles', async () => {
    const mgr = manager();
    const pinned = mgr.memhostalloc(64);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const done = mgr.deferCleanup(async () => {
      pinned.free();
      await gate;
      return 'done';
    });
    await new Promise((resolve) => setImmediate(resolve));
    if (onFake()) expect(fake.now().allocations).toBe(1);
    release();
    expect(await done).toBe('done');
    if (onFake()) expect(fake.now().allocations).toBe(0);
  });

  it("closes the scope when the callback throws, with the callback's error", () => {
    const mgr = manager();
    const pinned = mgr.memhostalloc(64);
    const error = new Error('boom');
    expect(
      thrown(() =>
        mgr.deferCleanup(() => {
          pinned.free();
          throw error;
        }),
      ),
    ).toBe(error);
    if (onFake()) expect(fake.now().allocations).toBe(0);
    expect(thrown(() => mgr.deferCleanup(42 as unknown as () => void)).code).toBe('ERR_INVALID_ARG_TYPE');
  });

  it('reset() runs the held releases, even inside a scope', () => {
    const mgr = manager();
    const scope = mgr.deferCleanup();
    mgr.memhostalloc(64).free();
    mgr.memallocmanaged(64).free();
    if (onFake()) expect(fake.now().allocations).toBe(2);
    mgr.reset();
    if (onFake()) expect(fake.now().allocations).toBe(0);
    scope[Symbol.dispose]();
  });

  it.runIf(onFake())('a held release that fails throws when the scope closes and is tried again later', () => {
    const mgr = manager();
    const scope = mgr.deferCleanup();
    mgr.memhostalloc(64).free();
    mgr.memallocmanaged(64).free();
    fakeCuda.failNext('cuMemFreeHost', 1, 'CUDA_ERROR_LAUNCH_FAILED');
    const error = thrown(() => scope[Symbol.dispose]());
    expect(error).toBeInstanceOf(CudaError);
    expect(error.message).toContain('cuMemFreeHost');
    expect(fake.now().allocations).toBe(1); // the managed memory went; the page-locked memory is held
    mgr.deferCleanup(() => {});
    expect(fake.now().allocations).toBe(0);
  });

  it.runIf(onFake())('several failures are one AggregateError', () => {
    const mgr = manager();
    const scope = mgr.deferCleanup();
    mgr.memhostalloc(64).free();
    mgr.memhostalloc(64).free();
    fakeCuda.failAlways('cuMemFreeHost', 'CUDA_ERROR_LAUNCH_FAILED');
    const error = thrown(() => scope[Symbol.dispose]());
    expect(error).toBeInstanceOf(AggregateError);
    expect(error.errors).toHaveLength(2);
    expect(error.message).toBe('deferCleanup: 2 releases failed');
    fakeCuda.clearFaults();
    mgr.reset();
  });
});
