// What the pool makes of its upstream's failures: only running out of memory becomes "Maximum pool
// size exceeded"; every other error reaches the caller as the upstream raised it: class, code and
// message, and a JavaScript error as the same object.
import {
  CudaError,
  CudaMemoryResource,
  OutOfMemoryError,
  RMMError,
  getCurrentDeviceResource,
  setCurrentDeviceResource,
} from '@rmmjs/core';
import { CallbackMemoryResource } from '@rmmjs/callback';
import { PoolMemoryResource } from '@rmmjs/pool';
import { fakeCuda, onFake, runWorker, thrown } from '@rmmjs/test-helpers';
import { afterEach, describe, expect, it } from 'vitest';

const MiB = 1 << 20;
const wrongThread = (op: string) =>
  `CallbackMemoryResource: the ${op} callback cannot run on this thread (it runs only on the JavaScript thread that created the resource)`;

/** A callback resource over the current one that throws `failure` (when set) instead of allocating. */
function callbackUpstream() {
  const base = getCurrentDeviceResource();
  const state: { failure?: unknown; allocations: number } = { allocations: 0 };
  const mr = new CallbackMemoryResource(
    (nbytes, stream) => {
      state.allocations++;
      if (state.failure !== undefined) throw state.failure;
      return base.allocate(nbytes, stream);
    },
    (ptr, nbytes, stream) => base.deallocate(ptr, nbytes, stream),
  );
  return { mr, state };
}

describe('PoolMemoryResource upstream errors', () => {
  it('an error thrown by a callback upstream during growth reaches the caller as the same object, at once', () => {
    const { mr, state } = callbackUpstream();
    using pool = new PoolMemoryResource(mr, { initialPoolSize: MiB });
    const held = pool.allocate(MiB);
    const failure = new Error('the upstream is closed');
    state.failure = failure;
    state.allocations = 0;
    expect(thrown(() => pool.allocate(256 * 1024))).toBe(failure);
    expect(state.allocations).toBe(1); // not retried at half the size: only running out of memory is
    expect(pool.poolSize()).toBe(MiB);
    state.failure = undefined;
    pool.deallocate(pool.allocate(256 * 1024), 256 * 1024);
    expect(pool.poolSize()).toBe(2 * MiB);
    pool.deallocate(held, MiB);
  });

  it('an error thrown by a callback upstream for the initial pool reaches the caller as the same object', () => {
    const { mr, state } = callbackUpstream();
    const failure = new RangeError('no initial pool today');
    state.failure = failure;
    expect(thrown(() => new PoolMemoryResource(mr, { initialPoolSize: MiB }))).toBe(failure);
  });

  it('a worker using a pool over a callback resource gets ERR_RMM_WRONG_THREAD, not "Maximum pool size exceeded"', async () => {
    const { mr, state } = callbackUpstream();
    using pool = new PoolMemoryResource(mr, { initialPoolSize: MiB });
    const previous = setCurrentDeviceResource(pool);
    try {
      const seen = await runWorker(new URL('./workers/wrong-thread.js', import.meta.url));
      expect(seen).toEqual([
        ['RMMError', false, 'ERR_RMM_WRONG_THREAD', wrongThread('allocate')],
        ['RMMError', false, 'ERR_RMM_WRONG_THREAD', wrongThread('allocate')],
        ['RMMError', false, 'ERR_RMM_WRONG_THREAD', wrongThread('allocate')],
        MiB,
      ]);
    } finally {
      setCurrentDeviceResource(previous);
    }
    expect(state.allocations).toBe(1); // the initial pool only
    expect(pool.poolSize()).toBe(MiB);
  });

  it('a callback upstream that returns no memory (out of memory) is "Maximum pool size exceeded"', () => {
    using empty = new CallbackMemoryResource(
      () => 0n,
      () => {},
    );
    using pool = new PoolMemoryResource(empty, { initialPoolSize: 0 });
    const error = thrown(() => pool.allocate(1000));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.code).toBe('ERR_RMM_OUT_OF_MEMORY');
    expect(error.message).toBe(
      'Maximum pool size exceeded (failed to allocate 1024.000000 B): CallbackMemoryResource: allocate returned 0n (failed to allocate 1024.000000 B)',
    );
  });

  it('an upstream pool at its maximum (out of memory) is "Maximum pool size exceeded" with its reason', () => {
    using inner = new PoolMemoryResource(getCurrentDeviceResource(), { initialPoolSize: 0, maximumPoolSize: MiB });
    using outer = new PoolMemoryResource(inner, { initialPoolSize: 0 });
    const error = thrown(() => outer.allocate(2 * MiB));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error).toBeInstanceOf(RMMError);
    expect(error.message).toBe(
      'Maximum pool size exceeded (failed to allocate 2.000000 MiB): Maximum pool size exceeded (failed to allocate 2.000000 MiB): ' +
        'Not enough room to grow, current/max/try size = 0.000000 B, 1024.000000 KiB, 2.000000 MiB',
    );
  });
});

describe.runIf(onFake())('PoolMemoryResource upstream driver errors', () => {
  afterEach(() => fakeCuda.clearFaults());

  it('a CUDA error other than out of memory is that CudaError, not retried, and the pool recovers', () => {
    const baseline = fakeCuda.stats().liveAllocations;
    using pool = new PoolMemoryResource(new CudaMemoryResource(), { initialPoolSize: MiB });
    const held = pool.allocate(MiB);
    fakeCuda.reset();
    fakeCuda.failAlways('cuMemAlloc_v2', 'CUDA_ERROR_INVALID_VALUE');
    const error = thrown(() => pool.allocate(256 * 1024)); // tries to grow by 1 MiB
    expect(error).toBeInstanceOf(CudaError);
    expect(error).not.toBeInstanceOf(OutOfMemoryError);
    expect(error.code).toBe('ERR_CUDA');
    expect(error.cudaErrorName).toBe('CUDA_ERROR_INVALID_VALUE');
    expect(error.message).toMatch(
      /^CUDA error \(failed to allocate 1048576 bytes\) at cuMemAlloc_v2: CUDA_ERROR_INVALID_VALUE/,
    );
    expect(fakeCuda.stats().calls.cuMemAlloc_v2).toBe(1);
    expect(pool.poolSize()).toBe(MiB);
    fakeCuda.clearFaults();
    pool.deallocate(pool.allocate(256 * 1024), 256 * 1024);
    expect(pool.poolSize()).toBe(2 * MiB);
    expect(fakeCuda.stats().liveAllocations).toBe(baseline + 2);
    pool.deallocate(held, MiB);
  });

  it('a CUDA error other than out of memory for the initial pool is that CudaError, and nothing leaks', () => {
    const baseline = fakeCuda.stats().liveAllocations;
    fakeCuda.failNext('cuMemAlloc_v2', 1, 'CUDA_ERROR_INVALID_VALUE');
    const error = thrown(() => new PoolMemoryResource(new CudaMemoryResource(), { initialPoolSize: MiB }));
    expect(error).toBeInstanceOf(CudaError);
    expect(error).not.toBeInstanceOf(OutOfMemoryError);
    expect(error.cudaErrorName).toBe('CUDA_ERROR_INVALID_VALUE');
    expect(error.message).toContain('cuMemAlloc_v2');
    expect(fakeCuda.stats().liveAllocations).toBe(baseline);
  });
});
