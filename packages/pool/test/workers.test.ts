// One pool shared by worker threads: allocate and deallocate run on every thread at once.
import { DeviceBuffer, getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { LimitingResourceAdaptor as Limiting } from '@rmmjs/limiting';
import { PoolMemoryResource } from '@rmmjs/pool';
import { expectBytes, fakeCuda, onFake, pattern, runInWorker } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';
const MiB = 1 << 20;

/** Runs source (an async function body with `core`, `pool` and `workerData` in scope) in a worker. */
const runWorker = (source: string, workerData?: unknown) =>
  runInWorker(source, { modules: { pool: '@rmmjs/pool' }, workerData });

// Through the current resource: `rounds` buffers filled, checked byte for byte and freed, half on a
// stream of the thread's own; then raw allocate/deallocate with up to 32 live. Returns the buffers
// that kept their bytes.
const churn = (seed: number, rounds: number) => `
  const stream = new core.Stream();
  const mr = core.getCurrentDeviceResource();
  let ok = 0;
  for (let i = 0; i < ${rounds}; i++) {
    const size = 1 + ((i * 7919 + ${seed} * 104729) % 200000);
    const value = (${seed} * 31 + i) & 0xff;
    const onStream = i % 2 === 1 ? stream : undefined;
    const buffer = new core.DeviceBuffer({ data: new Uint8Array(size).fill(value), stream: onStream });
    const back = buffer.toBytes(onStream);
    if (back.length === size && back.every((b) => b === value)) ok++;
    buffer.free();
  }
  const live = [];
  for (let i = 0; i < 20000; i++) {
    if (live.length >= 32 || (live.length > 0 && (i * 2654435761 + ${seed}) % 7 < 3)) {
      const [ptr, size, s] = live.pop();
      mr.deallocate(ptr, size, s);
    } else {
      const size = 1 + ((i * 40503 + ${seed}) % 65536);
      const s = i % 3 === 0 ? stream : undefined;
      live.push([mr.allocate(size, s), size, s]);
    }
  }
  for (const [ptr, size, s] of live) mr.deallocate(ptr, size, s);
  stream[Symbol.dispose]();
  return ok;`;

// Workers wait at this barrier until the main thread lets them all go at once.
const barrier = `
  const flags = new Int32Array(workerData);
  Atomics.add(flags, 0, 1);
  Atomics.wait(flags, 1, 0);`;

describe('PoolMemoryResource in worker threads', () => {
  it('a worker sees the pool the main thread set, as a PoolMemoryResource', async () => {
    using pool = new PoolMemoryResource(getCurrentDeviceResource(), { initialPoolSize: MiB });
    const previous = setCurrentDeviceResource(pool);
    try {
      const seen = await runWorker(`
        const mr = core.getCurrentDeviceResource();
        const ptr = mr.allocate(1000);
        mr.deallocate(ptr, 1000);
        return [mr.constructor.name, mr instanceof pool.PoolMemoryResource, mr.poolSize(), typeof ptr];`);
      expect(seen).toEqual(['PoolMemoryResource', true, MiB, 'bigint']);
    } finally {
      setCurrentDeviceResource(previous);
    }
  });

  it('four workers and the main thread allocate and free through one pool at once', async () => {
    const baseline = onFake() ? fakeCuda.stats().liveAllocations : 0;
    const limiter = Limiting ? new Limiting(getCurrentDeviceResource(), 256 * MiB) : undefined;
    const pool = new PoolMemoryResource(limiter ?? getCurrentDeviceResource(), { initialPoolSize: 4 * MiB });
    const previous = setCurrentDeviceResource(pool);
    try {
      const flags = new Int32Array(new SharedArrayBuffer(8));
      const workers = [1, 2, 3, 4].map((seed) => runWorker(barrier + churn(seed, 200), flags.buffer));
      while (Atomics.load(flags, 0) < 4) await new Promise((resolve) => setTimeout(resolve, 5));
      Atomics.store(flags, 1, 1);
      Atomics.notify(flags, 1);
      const main = new Function('core', `return (() => { ${churn(5, 200)} })();`)(await import('@rmmjs/core'));
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
    if (limiter) expect(limiter.getAllocatedBytes()).toBe(0);
    if (onFake()) expect(fakeCuda.stats().liveAllocations).toBe(baseline);
  });
});
