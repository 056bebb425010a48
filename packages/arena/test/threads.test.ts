// One arena shared by worker_threads and native threads: each thread has its own arena, blocks
// cross threads, exiting threads give their superblocks back, no two live blocks overlap, and a
// thread that exits while the arena goes keeps none of its memory.
import { getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { ArenaMemoryResource } from '@rmmjs/arena';
import { KiB, MiB, disposeAfterEach, runInProcess, runWorker } from '@rmmjs/test-helpers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { arenaSummary } from '@rmmjs/arena';
import { holdAtExitLibrary, nativeThreadsWorkload } from '@rmmjs/test-addon';

const workerModule = (name: string) => new URL(`./workers/${name}.js`, import.meta.url);

describe('ArenaMemoryResource shared by threads', () => {
  const keep = disposeAfterEach();
  let previous: ReturnType<typeof getCurrentDeviceResource>;
  beforeEach(() => {
    previous = getCurrentDeviceResource();
  });
  afterEach(() => {
    setCurrentDeviceResource(previous);
  });
  const shared = (arenaSize: number) => {
    const mr = keep(new ArenaMemoryResource(getCurrentDeviceResource(), { arenaSize }));
    setCurrentDeviceResource(mr);
    return mr;
  };

  it('four workers allocate and free at once, each block keeping its bytes', async () => {
    const mr = shared(64 * MiB);
    const results = await Promise.all(
      [1, 2, 3, 4].map((seed) => runWorker(workerModule('buffers'), { workerData: { seed, steps: 300 } })),
    );
    for (const [name, checked, mismatches] of results) {
      expect(name).toBe('ArenaMemoryResource');
      expect(checked).toBeGreaterThan(100);
      expect(mismatches).toBe(0);
    }
    // Each worker's arena went back to the global arena when the worker exited.
    expect(arenaSummary(mr)).toMatchObject({ threadArenas: 0, globalFreeBytes: 64 * MiB, globalSuperblocks: 1 });
    const all = mr.allocate(64 * MiB);
    mr.deallocate(all, 64 * MiB);
  });

  it('RMM Defragment: threads that allocated on their own streams leave the whole arena allocatable', async () => {
    const mr = shared(4 * MiB);
    await Promise.all([1, 2, 3, 4].map(() => runWorker(workerModule('on-own-stream'))));
    expect(arenaSummary(mr)).toMatchObject({ streamArenas: 4, globalFreeBytes: 0 });
    const all = mr.allocate(4 * MiB);
    mr.deallocate(all, 4 * MiB);
  });

  it('blocks freed by another thread go back where they came from', async () => {
    const mr = shared(8 * MiB);
    const blocks = Array.from({ length: 50 }, () => mr.allocate(10 * KiB));
    await runWorker(workerModule('frees'), { workerData: { blocks } });
    const again = Array.from({ length: 50 }, () => mr.allocate(10 * KiB));
    expect(new Set(again)).toEqual(new Set(blocks));
    for (const p of again) mr.deallocate(p, 10 * KiB);
  });

  it('an exiting worker returns its superblocks, with the blocks it left live', async () => {
    const mr = shared(4 * MiB);
    const kept: bigint[] = await runWorker(workerModule('leaves-live'));
    expect(arenaSummary(mr)).toMatchObject({ threadArenas: 0, globalSuperblocks: 2, globalFreeBytes: MiB - 1024 });
    expect(mr.allocate(500 * KiB)).toBe(kept[0] + BigInt(1024));
    mr.deallocate(kept[0] + BigInt(1024), 500 * KiB);
    mr.deallocate(kept[0], 1000);
    mr.deallocate(kept[1], 3 * MiB);
    const all = mr.allocate(4 * MiB);
    expect(all).toBe(kept[0]);
    mr.deallocate(all, 4 * MiB);
  });

  it('native threads and worker_threads at once, with pattern checks', async () => {
    const mr = shared(64 * MiB);
    const workers = Promise.all(
      [5, 6].map((seed) => runWorker(workerModule('buffers'), { workerData: { seed, steps: 200 } })),
    );
    const native = nativeThreadsWorkload(mr, {
      threads: 4,
      iterations: 2000,
      minBytes: 1,
      maxBytes: 64 * KiB,
      maxLive: 16,
      seed: 3,
      check: true,
    });
    expect(native.errors).toEqual([]);
    expect(native.mismatches).toBe(0);
    expect(native.operations).toBeGreaterThanOrEqual(4 * 2000);
    for (const [, checked, mismatches] of await workers) {
      expect(checked).toBeGreaterThan(50);
      expect(mismatches).toBe(0);
    }
    expect(arenaSummary(mr)).toMatchObject({ threadArenas: 0, globalFreeBytes: 64 * MiB });
  });

  it('eight native threads on a small arena: defragmentations while the others work', () => {
    const mr = keep(new ArenaMemoryResource(getCurrentDeviceResource(), { arenaSize: 12 * MiB }));
    const result = nativeThreadsWorkload(mr, {
      threads: 8,
      iterations: 3000,
      minBytes: 1,
      maxBytes: 200 * KiB,
      maxLive: 4,
      seed: 11,
      check: true,
    });
    expect(result.mismatches).toBe(0);
    for (const error of result.errors) expect(error).toMatch(/^Maximum pool size exceeded/);
    expect(result.errors.length).toBeLessThan(8);
    expect(arenaSummary(mr)).toMatchObject({ threadArenas: 0, globalSuperblocks: 1, globalFreeBytes: 12 * MiB });
  });
});

describe('ArenaMemoryResource and a thread that exits while it goes', () => {
  // A thread's exit hook holds the arena's state while it returns the thread's superblocks. One
  // held there when the last reference goes (in the soak: a worker that had just answered) must
  // not keep the arena's block from going back upstream at that release.
  it('a thread held in its exit hook: the last release gives the memory back upstream at once', () => {
    const run = runInProcess(new URL('./children/released-while-held.js', import.meta.url), {
      // After a sanitizer's runtime, which must come first.
      env: { LD_PRELOAD: [process.env.LD_PRELOAD, holdAtExitLibrary].filter(Boolean).join(' ') },
      timeout: 60_000,
    });
    expect({ status: run.status, signal: run.signal }, run.stderr).toEqual({ status: 0, signal: null });
    expect(JSON.parse(run.stdout)).toEqual({ held: true, status: 0, message: '', whileHeld: 0, afterExit: 0 });
  });
});
