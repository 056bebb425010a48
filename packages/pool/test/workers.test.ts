// One pool shared by worker threads: allocate and deallocate run on every thread at once.
import { DeviceBuffer, getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { PoolMemoryResource } from '@rmmjs/pool';
import { counting, expectBytes, fakeCuda, onFake, pattern, runWorker } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';
import { churn } from './workers/churn.js';
const MiB = 1 << 20;

const workerModule = (name: string) => new URL(`./workers/${name}.js`, import.meta.url);

describe('PoolMemoryResource in worker threads', () => {
  it('a worker sees the pool the main thread set, as a PoolMemoryResource', async () => {
    using pool = new PoolMemoryResource(getCurrentDeviceResource(), { initialPoolSize: MiB });
    const previous = setCurrentDeviceResource(pool);
    try {
      const seen = await runWorker(workerModule('sees-pool'));
      expect(seen).toEqual(['PoolMemoryResource', true, MiB, 'bigint']);
    } finally {
      setCurrentDeviceResource(previous);
    }
  });

  it('four workers and the main thread allocate and free through one pool at once', async () => {
    const baseline = onFake() ? fakeCuda.stats().liveAllocations : 0;
    const upstream = counting();
    const pool = new PoolMemoryResource(upstream, { initialPoolSize: 4 * MiB });
    const previous = setCurrentDeviceResource(pool);
    try {
      const flags = new Int32Array(new SharedArrayBuffer(8));
      const workers = [1, 2, 3, 4].map((seed) =>
        runWorker(workerModule('churn-together'), { workerData: { flags: flags.buffer, seed, rounds: 200 } }),
      );
      while (Atomics.load(flags, 0) < 4) await new Promise((resolve) => setTimeout(resolve, 5));
      Atomics.store(flags, 1, 1);
      Atomics.notify(flags, 1);
      const main = churn(5, 200);
      expect(await Promise.all(workers)).toEqual([200, 200, 200, 200]);
      expect(main).toBe(200);
      // Every byte is free again: each buffer of the last rounds checks its own bytes.
      const buffer = new DeviceBuffer({ data: pattern(5000, 9) });
      expectBytes(buffer.toBytes(), pattern(5000, 9));
      buffer.free();
    } finally {
      setCurrentDeviceResource(previous);
      pool[Symbol.dispose]();
    }
    expect(upstream.getAllocatedBytes()).toBe(0);
    if (onFake()) expect(fakeCuda.stats().liveAllocations).toBe(baseline);
  });
});
