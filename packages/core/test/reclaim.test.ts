// Buffers dropped without free() are garbage, not memory in use: before an allocation reports out of
// memory, the ones the collector found unreachable (whose finalizers wait for the event loop) are
// freed and the allocation is retried. A synchronous loop never lets the event loop turn.
import { setTimeout as sleep } from 'node:timers/promises';
import { CudaMemoryResource, DeviceBuffer, OutOfMemoryError } from '@rmmjs/core';
import { fakeCuda, onFake, runWorker, thrown } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

const MiB = 1 << 20;

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
