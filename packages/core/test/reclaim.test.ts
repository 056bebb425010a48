// Buffers dropped without free() are garbage, not memory in use: before an allocation reports out of
// memory, the ones the collector found unreachable (whose finalizers wait for the event loop) are
// freed and the allocation is retried. A synchronous loop never lets the event loop turn.
import { setImmediate as turn, setTimeout as sleep } from 'node:timers/promises';
import { CudaMemoryResource, DeviceBuffer, OutOfMemoryError, getCurrentDeviceResource } from '@rmmjs/core';
import { countFullCollections, dropOnlyLoops, fakeCuda, onFake, runWorker, thrown } from '@rmmjs/test-helpers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CountingResourceAdaptor } from './counting-adaptor.js';

const MiB = 1 << 20;

// A 64 MiB limit over the current device resource, fresh for each test.
let mr: CountingResourceAdaptor;
beforeEach(() => {
  mr = new CountingResourceAdaptor(getCurrentDeviceResource(), 64 * MiB);
});
afterEach(() => {
  mr[Symbol.dispose]();
});

function expectOutOfMemory(fn: () => unknown): void {
  const error = thrown(fn);
  expect([error.constructor.name, error.code, error.message]).toEqual([
    'OutOfMemoryError',
    'ERR_RMM_OUT_OF_MEMORY',
    'Exceeded memory limit',
  ]);
}

describe('drop-only loops over a 64 MiB limit, synchronous and with the event loop turning', () => {
  it('new DeviceBuffer: 3 x the limit in 4 MiB buffers, each way', async () => {
    await dropOnlyLoops(() => new DeviceBuffer({ size: 4 * MiB, mr }), 48);
    expect(mr.counts().bytesOutstanding).toBeLessThanOrEqual(64 * MiB);
  });

  it('copy(), resize() and reserve() of a buffer that is then dropped', async () => {
    const source = new DeviceBuffer({ size: 4 * MiB, mr });
    await dropOnlyLoops(() => source.copy(), 48);
    await dropOnlyLoops(() => new DeviceBuffer({ size: 256, mr }).resize(4 * MiB), 48);
    await dropOnlyLoops(() => new DeviceBuffer({ size: 256, mr }).reserve(4 * MiB), 48);
    source.free();
  });

  it('allocate() from the resource: reclaims the buffers dropped before it', () => {
    for (let i = 0; i < 16; i++) new DeviceBuffer({ size: 4 * MiB, mr });
    const ptr = mr.allocate(32 * MiB);
    mr.deallocate(ptr, 32 * MiB);
  });
});

// A caught OutOfMemoryError costs a full collection only when one could help: memory that owners
// whose objects may be garbage hold covers the request, and no collection of the last 100 ms found
// them all reachable (the counts are perf_hooks' mark-compact collections). Small
// sizes, under an 8 MiB limit: external memory that grows by tens of MiB makes V8 collect on its own.
describe('full collections on the way to OutOfMemoryError', () => {
  let small: CountingResourceAdaptor;
  beforeEach(() => {
    small = new CountingResourceAdaptor(getCurrentDeviceResource(), 8 * MiB);
  });
  afterEach(() => {
    small[Symbol.dispose]();
  });
  const holding = () => Array.from({ length: 7 }, () => new DeviceBuffer({ size: MiB, mr: small }));

  it('none for a raw allocate() larger than all the memory owners hold', async () => {
    const held = new DeviceBuffer({ size: MiB, mr: small });
    const { collections } = await countFullCollections(() => {
      for (let i = 0; i < 200; i++) expectOutOfMemory(() => small.allocate(16 * MiB));
    });
    expect(collections).toBe(0);
    held.free();
  });

  it('one for a burst of failures while the memory held is reachable', async () => {
    const held = holding();
    const { collections } = await countFullCollections(() => {
      for (let i = 0; i < 200; i++) expectOutOfMemory(() => new DeviceBuffer({ size: 2 * MiB, mr: small }));
    });
    expect(collections).toBe(1);
    for (const buffer of held) buffer.free();
  });

  it('one every 100 ms for failures that go on: what was dropped since is reclaimed then', async () => {
    let held: DeviceBuffer[] | undefined = holding();
    const { collections } = await countFullCollections(async () => {
      expectOutOfMemory(() => new DeviceBuffer({ size: 2 * MiB, mr: small })); // the burst's collection
      expect(held).toHaveLength(7);
      held = undefined;
      await turn();
      expectOutOfMemory(() => new DeviceBuffer({ size: 2 * MiB, mr: small })); // found reachable 0 ms ago
      await sleep(150);
      new DeviceBuffer({ size: 2 * MiB, mr: small }).free(); // collected, reclaimed
    });
    expect(collections).toBe(2);
    expect(small.counts().bytesOutstanding).toBe(0);
  });
});

describe.runIf(onFake())('dropped buffers on a 256 MiB (fake) device', () => {
  it('a synchronous drop-only loop of 1 GiB in 1 MiB buffers never runs out', () => {
    const mr = new CudaMemoryResource();
    const live = fakeCuda.stats().liveAllocations;
    for (let i = 0; i < 1024; i++) new DeviceBuffer({ size: MiB, mr });
    expect(fakeCuda.stats().liveAllocations - live).toBeLessThanOrEqual(256);
  });

  it('big buffers dropped in a loop: 40 x 64 MiB', () => {
    for (let i = 0; i < 40; i++) new DeviceBuffer({ size: 64 * MiB });
  });

  it('what is still referenced stays: a request that cannot fit is OutOfMemoryError', () => {
    const held = Array.from({ length: 3 }, () => new DeviceBuffer({ size: 64 * MiB }));
    for (let i = 0; i < 10; i++) new DeviceBuffer({ size: 32 * MiB });
    expect(thrown(() => new DeviceBuffer({ size: 128 * MiB }))).toBeInstanceOf(OutOfMemoryError);
    expect(held.every((buffer) => buffer.size === 64 * MiB)).toBe(true);
    for (const buffer of held) buffer.free();
  });
});

// The full collection borrows V8's --expose-gc flag, which is the process's: threads running out
// of memory at once used to put it back under each other, and one got "gc is not defined" instead
// of its OutOfMemoryError.
describe('threads running out of memory at the same moment', () => {
  it('each gets OutOfMemoryError', async () => {
    for (let round = 0; round < 3; round++) {
      // [0]: the workers that are about to wait; [1]: the start.
      const flags = new Int32Array(new SharedArrayBuffer(8));
      const workers = Array.from({ length: 8 }, () =>
        runWorker(new URL('./workers/out-of-memory-together.js', import.meta.url), {
          workerData: { flags: flags.buffer },
        }),
      );
      // Release them at once when every worker has started (imported core) and waits on the start
      // (a worker that failed before then is Promise.all's rejection below, after a minute at most).
      for (let waited = 0; Atomics.load(flags, 0) < 8 && waited < 60_000; waited++) await sleep(1);
      Atomics.store(flags, 1, 1);
      Atomics.notify(flags, 1);
      expect(await Promise.all(workers)).toEqual(Array(8).fill('OutOfMemoryError ERR_RMM_OUT_OF_MEMORY'));
    }
  });
});
