// The per-thread caches of freed blocks in front of the pool's lists. They come on by themselves
// the first time threads meet on the pool's lock; these tests turn them on through the test addon
// instead, so that nothing depends on timing.
import { Worker } from 'node:worker_threads';
import { RMMError } from '@rmmjs/core';
import { PoolMemoryResource } from '@rmmjs/pool';
import { poolThreadCaches as cached } from '@rmmjs/test-addon';
import { counting, fakeCuda, onFake, runWorker, thrown } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

const KiB = 1024;
const MiB = 1024 * KiB;

const workerModule = (name: string) => new URL(`./workers/${name}.js`, import.meta.url);

// A pool of exactly `size` bytes that cannot grow, over a byte counter.
function fixedPool(size: number) {
  const upstream = counting();
  const pool = new PoolMemoryResource(upstream, { initialPoolSize: size, maximumPoolSize: size });
  return { upstream, pool };
}

describe('PoolMemoryResource per-thread caches', () => {
  it('are off in a pool no two threads met on: frees coalesce at once, as in RMM', () => {
    using pool = new PoolMemoryResource(counting(), { initialPoolSize: MiB });
    const a = pool.allocate(KiB);
    pool.deallocate(a, KiB);
    expect(cached(pool)).toBe(0);
    expect(pool.allocate(MiB)).toBe(a);
    pool.deallocate(a, MiB);
  });

  it('stay off when threads use the pool one after the other (they never met on its lock)', async () => {
    using pool = new PoolMemoryResource(counting(), { initialPoolSize: MiB });
    const a = pool.allocate(KiB);
    pool.deallocate(a, KiB);
    const [fromWorker, , cachedThere] = await runWorker(workerModule('allocates-once'), {
      workerData: { pool: pool.share(), bytes: KiB },
    });
    expect([fromWorker, cachedThere]).toEqual([a, 0]);
    const b = pool.allocate(KiB);
    pool.deallocate(b, KiB);
    expect([b, cached(pool)]).toEqual([a, 0]);
    expect(pool.allocate(MiB)).toBe(a); // every free coalesced at once
    pool.deallocate(a, MiB);
  });

  it('hold a freed block for the same size on the same stream of the same thread', () => {
    using pool = new PoolMemoryResource(counting(), { initialPoolSize: MiB });
    expect(cached(pool, true)).toBe(0);
    const a = pool.allocate(1000);
    const b = pool.allocate(1000);
    pool.deallocate(a, 1000);
    expect(cached(pool)).toBe(1);
    expect(pool.allocate(1024)).toBe(a); // the same block size (1000 and 1024 round to 1024)
    expect(cached(pool)).toBe(0);
    pool.deallocate(a, 1024);
    pool.deallocate(b, 1000);
    expect(cached(pool)).toBe(2);
    expect(pool.poolSize()).toBe(MiB);
  });

  it('refuse a cached block freed again, or with another size, as the uncached pool does', () => {
    using pool = new PoolMemoryResource(counting(), { initialPoolSize: MiB });
    cached(pool, true);
    const a = pool.allocate(KiB);
    pool.deallocate(a, KiB);
    for (const bytes of [KiB, 2 * KiB]) {
      const error = thrown(() => pool.deallocate(a, bytes));
      expect(error).toBeInstanceOf(RMMError);
      expect(error.code).toBe('ERR_RMM_LOGIC');
      expect(error.message).toBe(
        `PoolMemoryResource: cannot deallocate 0x${a.toString(16)} (${bytes} bytes): the range is already free (freed twice, or the wrong size)`,
      );
    }
    // The refusal put the cached blocks back on the lists: all of the pool is one block again.
    expect(cached(pool)).toBe(0);
    expect(pool.allocate(MiB)).toBe(a);
    pool.deallocate(a, MiB);
  });

  it('are given back before the pool grows or gives up: a full pool serves another thread', async () => {
    const { upstream, pool } = fixedPool(4 * MiB);
    cached(pool, true);
    const blocks = [0, 1, 2, 3].map(() => pool.allocate(MiB));
    for (const ptr of blocks) pool.deallocate(ptr, MiB);
    expect(cached(pool)).toBe(4);
    // The whole pool at once, from a worker, fits only when this thread's cached blocks come back.
    const [ptr, size, left] = await runWorker(workerModule('allocates-once'), {
      workerData: { pool: pool.share(), bytes: 4 * MiB },
    });
    expect([ptr, size, left]).toEqual([blocks[0], 4 * MiB, 1]);
    expect(cached(pool)).toBe(0);
    // Out of memory still says so once nothing is cached.
    const big = pool.allocate(4 * MiB);
    expect(thrown(() => pool.allocate(256)).code).toBe('ERR_RMM_OUT_OF_MEMORY');
    pool.deallocate(big, 4 * MiB);
    pool[Symbol.dispose]();
    expect(upstream.getAllocatedBytes()).toBe(0);
  });

  it('of a worker that is terminated while it holds cached blocks come back to the pool', async () => {
    const { upstream, pool } = fixedPool(4 * MiB);
    cached(pool, true);
    const worker = new Worker(workerModule('holds-cached-blocks'), { workerData: pool.share() });
    const blocks = await new Promise<bigint[]>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    expect(new Set(blocks).size).toBe(3);
    expect(cached(pool)).toBe(3);
    expect(await worker.terminate()).toBe(1);
    // Its exit gave them back: no cache holds them, and the whole pool is one free block again
    // (allocated here without draining anything).
    expect(cached(pool)).toBe(0);
    const all = pool.allocate(4 * MiB);
    expect(all).toBe(blocks.reduce((a, b) => (a < b ? a : b)));
    expect(pool.poolSize()).toBe(4 * MiB);
    pool.deallocate(all, 4 * MiB);
    pool[Symbol.dispose]();
    expect(upstream.getAllocatedBytes()).toBe(0);
  });

  it('held by live threads when the pool goes: everything goes back upstream, and the threads go on', async () => {
    const baseline = onFake() ? fakeCuda.stats().liveAllocations : 0;
    const { upstream, pool } = fixedPool(8 * MiB);
    cached(pool, true);
    pool.deallocate(pool.allocate(KiB), KiB); // this thread's cache holds a block
    const flags = new Int32Array(new SharedArrayBuffer(8));
    const worker = runWorker(workerModule('outlives-pool'), {
      workerData: { pool: pool.share(), flags: flags.buffer },
    });
    while (Atomics.load(flags, 0) === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(cached(pool)).toBe(4);
    expect(upstream.getAllocatedBytes()).toBe(8 * MiB);
    pool[Symbol.dispose]();
    expect(upstream.getAllocatedBytes()).toBe(0);
    Atomics.store(flags, 1, 1);
    Atomics.notify(flags, 1);
    expect(await worker).toEqual([4, true]);
    if (onFake()) expect(fakeCuda.stats().liveAllocations).toBe(baseline);
  });

  it.each([2, 4, 8])(
    'serve %i workers at once: every buffer keeps its bytes, and everything comes back',
    async (count) => {
      const { upstream, pool } = fixedPool(16 * MiB);
      cached(pool, true);
      const flags = new Int32Array(new SharedArrayBuffer(8));
      // Each fills and checks buffers of a few sizes on two streams, with a pattern of its own seed.
      const workers = Array.from({ length: count }, (_, i) =>
        runWorker(workerModule('checks-buffers'), {
          workerData: { pool: pool.share(), flags: flags.buffer, seed: i + 1 },
        }),
      );
      while (Atomics.load(flags, 0) < count) await new Promise((resolve) => setTimeout(resolve, 5));
      Atomics.store(flags, 1, 1);
      Atomics.notify(flags, 1);
      const results = await Promise.all(workers);
      for (const [checked, bad] of results) {
        expect(checked).toBeGreaterThan(100);
        expect(bad).toBe(0);
      }
      // The workers are gone and gave their caches back: the whole pool is one free block again.
      expect(cached(pool)).toBe(0);
      const all = pool.allocate(16 * MiB);
      expect(pool.poolSize()).toBe(16 * MiB);
      pool.deallocate(all, 16 * MiB);
      pool[Symbol.dispose]();
      expect(upstream.getAllocatedBytes()).toBe(0);
    },
  );
});
