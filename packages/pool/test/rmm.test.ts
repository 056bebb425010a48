// RMM's own pool tests (cpp/tests/mr/pool_mr_tests.cpp, python/rmm/rmm/tests/test_pool_memory_resource.py)
// and growth under an upstream that refuses memory.
import { CudaMemoryResource, DeviceBuffer, getCurrentDeviceResource, OutOfMemoryError } from '@rmmjs/core';
import { PoolMemoryResource } from '@rmmjs/pool';
import { LimitingResourceAdaptor as Limiting } from '@rmmjs/limiting';
import { fakeCuda, onFake, thrown } from '@rmmjs/test-helpers';
import { afterEach, describe, expect, it } from 'vitest';

const KiB = 1024;
const MiB = 1024 * KiB;
const base = () => getCurrentDeviceResource();
const limited = (limit: number) => new Limiting(base(), limit);

describe('PoolMemoryResource over a LimitingResourceAdaptor', () => {
  it('RMM ForceGrowth: without a maximum, 1000, 4000 and 500 bytes fit under a 6000-byte limit, 2000 more does not', () => {
    using limiter = limited(6000);
    using pool = new PoolMemoryResource(limiter, { initialPoolSize: 0 });
    pool.allocate(1000);
    pool.allocate(4000);
    expect(pool.poolSize()).toBe(5120);
    pool.allocate(500); // growth of 5120 refused, then 2560 and 1280: 512 is taken
    expect(pool.poolSize()).toBe(5632);
    const error = thrown(() => pool.allocate(2000));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.code).toBe('ERR_RMM_OUT_OF_MEMORY');
    expect(error.message).toBe(
      'Maximum pool size exceeded (failed to allocate 2.000000 KiB): Exceeded memory limit (failed to allocate 2.000000 KiB)',
    );
    expect(pool.poolSize()).toBe(5632);
    expect(limiter.getAllocatedBytes()).toBe(5632);
  });

  it('RMM ForceGrowth: with a maximum of 8192, 1000 fits, 4000 does not, then 500 and 2000 fit', () => {
    using limiter = limited(6000);
    using pool = new PoolMemoryResource(limiter, { initialPoolSize: 0, maximumPoolSize: 8192 });
    pool.allocate(1000);
    expect(pool.poolSize()).toBe(4096);
    const error = thrown(() => pool.allocate(4000));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.message).toBe(
      'Maximum pool size exceeded (failed to allocate 4.000000 KiB): Exceeded memory limit (failed to allocate 4.000000 KiB)',
    );
    pool.allocate(500);
    pool.allocate(2000);
    expect(pool.poolSize()).toBe(4096);
    expect(limiter.getAllocatedBytes()).toBe(4096);
  });

  it('a refused growth is retried at half the size, down to the request, and the pool stays usable', () => {
    using limiter = limited(3 * MiB);
    using pool = new PoolMemoryResource(limiter, { initialPoolSize: 0 });
    const a = pool.allocate(MiB);
    pool.allocate(MiB);
    expect(pool.poolSize()).toBe(2 * MiB);
    pool.allocate(MiB); // 2 MiB refused, 1 MiB taken
    expect(pool.poolSize()).toBe(3 * MiB);
    const error = thrown(() => pool.allocate(1));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.message).toBe(
      'Maximum pool size exceeded (failed to allocate 256.000000 B): Exceeded memory limit (failed to allocate 256.000000 B)',
    );
    pool.deallocate(a, MiB);
    expect(pool.allocate(MiB)).toBe(a);
    expect(pool.poolSize()).toBe(3 * MiB);
  });

  it('with a maximum, a refused growth is retried at half the size', () => {
    using limiter = limited(5 * MiB);
    using pool = new PoolMemoryResource(limiter, { initialPoolSize: 0, maximumPoolSize: 16 * MiB });
    pool.allocate(MiB); // 8 MiB refused, 4 MiB taken
    expect(pool.poolSize()).toBe(4 * MiB);
    expect(limiter.getAllocatedBytes()).toBe(4 * MiB);
  });

  it('a refused initial pool is an OutOfMemoryError and leaks nothing', () => {
    using limiter = limited(MiB);
    const error = thrown(() => new PoolMemoryResource(limiter, { initialPoolSize: 2 * MiB }));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.message).toBe(
      'Maximum pool size exceeded (failed to allocate 2.000000 MiB): Exceeded memory limit (failed to allocate 2.000000 MiB)',
    );
    expect(limiter.getAllocatedBytes()).toBe(0);
  });

  it('gives all upstream memory back when the last reference goes, allocations outstanding or not', () => {
    using limiter = limited(64 * MiB);
    const pool = new PoolMemoryResource(limiter, { initialPoolSize: 64 * KiB });
    pool.allocate(100);
    pool.allocate(MiB); // grows
    const buffer = new DeviceBuffer({ size: 2 * MiB, mr: pool }); // grows again, keeps the pool alive
    const taken = pool.poolSize();
    expect(taken).toBe(64 * KiB + MiB + 2 * MiB);
    expect(limiter.getAllocatedBytes()).toBe(taken);
    pool[Symbol.dispose]();
    expect(limiter.getAllocatedBytes()).toBe(taken);
    buffer.free();
    expect(limiter.getAllocatedBytes()).toBe(0);
  });
});

describe('PoolMemoryResource growth, RMM Python tests', () => {
  it('test_reinitialize_max_pool_size: a buffer grows to 8 MiB - 1 in a pool of at most 8 MiB', () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 0, maximumPoolSize: '8MiB' });
    const buffer = new DeviceBuffer({ mr: pool });
    buffer.resize(8 * MiB - 1);
    expect(buffer.size).toBe(8 * MiB - 1);
    buffer.free();
  });

  it('test_reinitialize_max_pool_size_exceeded: 16 MiB from a pool of at most 8 MiB is an OutOfMemoryError', () => {
    using pool = new PoolMemoryResource(base(), { initialPoolSize: 0, maximumPoolSize: 8 * MiB });
    const buffer = new DeviceBuffer({ mr: pool });
    const error = thrown(() => buffer.resize(16 * MiB));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.message).toMatch(/^Maximum pool size exceeded \(failed to allocate 16\.000000 MiB\)/);
    expect(buffer.size).toBe(0);
    buffer.resize(MiB);
    buffer.free();
  });
});

describe.runIf(onFake())('PoolMemoryResource with driver faults', () => {
  afterEach(() => fakeCuda.clearFaults());

  it('an upstream failure during growth halves the attempt', () => {
    using pool = new PoolMemoryResource(new CudaMemoryResource(), { initialPoolSize: 0, maximumPoolSize: 8 * MiB });
    fakeCuda.failNext('cuMemAlloc_v2', 1, 'CUDA_ERROR_OUT_OF_MEMORY');
    pool.allocate(MiB); // 4 MiB refused, 2 MiB taken
    expect(pool.poolSize()).toBe(2 * MiB);
  });

  it('an upstream that keeps running out of memory is an OutOfMemoryError, and the pool recovers', () => {
    const baseline = fakeCuda.stats().liveAllocations;
    using pool = new PoolMemoryResource(new CudaMemoryResource(), { initialPoolSize: 0 });
    fakeCuda.failAlways('cuMemAlloc_v2', 'CUDA_ERROR_OUT_OF_MEMORY');
    const error = thrown(() => pool.allocate(MiB));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.message).toMatch(/^Maximum pool size exceeded \(failed to allocate 1024\.000000 KiB\): CUDA error/);
    expect(error.message).toContain('CUDA_ERROR_OUT_OF_MEMORY');
    expect(pool.poolSize()).toBe(0);
    fakeCuda.clearFaults();
    pool.deallocate(pool.allocate(MiB), MiB);
    expect(pool.poolSize()).toBe(MiB);
    expect(fakeCuda.stats().liveAllocations).toBe(baseline + 1);
  });

  it('a failing initial pool is an OutOfMemoryError and leaks nothing', () => {
    const baseline = fakeCuda.stats();
    fakeCuda.failNext('cuMemAlloc_v2', 1, 'CUDA_ERROR_OUT_OF_MEMORY');
    const error = thrown(() => new PoolMemoryResource(new CudaMemoryResource(), { initialPoolSize: MiB }));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.message).toMatch(/^Maximum pool size exceeded \(failed to allocate 1024\.000000 KiB\): /);
    expect(fakeCuda.stats().liveAllocations).toBe(baseline.liveAllocations);
  });

  it('disposing the pool frees every upstream allocation and every event', () => {
    const baseline = fakeCuda.stats();
    const pool = new PoolMemoryResource(new CudaMemoryResource(), { initialPoolSize: MiB });
    const ptrs = [pool.allocate(MiB), pool.allocate(3 * MiB), pool.allocate(100)];
    expect(fakeCuda.stats().liveAllocations).toBe(baseline.liveAllocations + 3);
    pool.deallocate(ptrs[2], 100);
    pool[Symbol.dispose]();
    const after = fakeCuda.stats();
    expect(after.liveAllocations).toBe(baseline.liveAllocations);
    expect(after.liveDeviceBytes).toEqual(baseline.liveDeviceBytes);
    expect(after.liveEvents).toBe(baseline.liveEvents);
  });
});
