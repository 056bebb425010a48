// The counter never drifts: memory this adaptor did not hand out, or freed twice, is refused
// (RMMError ERR_RMM_LOGIC) and leaves the counter and the upstream as they were.
import { CudaMemoryResource, DeviceBuffer, RMMError, getCurrentDeviceResource } from '@rmmjs/core';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { expectBytes, fakeCuda, onFake, pattern, thrown } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

function expectForeignFree(error: any): void {
  expect(error).toBeInstanceOf(RMMError);
  expect(error.code).toBe('ERR_RMM_LOGIC');
  expect(error.message).toContain('LimitingResourceAdaptor: cannot deallocate');
}

describe('LimitingResourceAdaptor counters', () => {
  it('freeing memory it never handed out is refused; the counter and the limit stay', () => {
    const upstream = getCurrentDeviceResource();
    const mr = new LimitingResourceAdaptor(upstream, 4096);
    const foreign = upstream.allocate(1000);
    expectForeignFree(thrown(() => mr.deallocate(foreign, 1000)));
    expect(mr.getAllocatedBytes()).toBe(0);
    const own = mr.allocate(1000);
    expect(mr.getAllocatedBytes()).toBe(1024);
    expectForeignFree(thrown(() => mr.deallocate(foreign, 1000)));
    expect(mr.getAllocatedBytes()).toBe(1024);
    expect(thrown(() => mr.allocate(4096)).code).toBe('ERR_RMM_OUT_OF_MEMORY');
    upstream.deallocate(foreign, 1000); // still the upstream's: it was never freed
    mr.deallocate(own, 1000);
    expect(mr.getAllocatedBytes()).toBe(0);
  });

  it('a double free is refused and the second allocation still counts', () => {
    const mr = new LimitingResourceAdaptor(getCurrentDeviceResource(), 1 << 20);
    const a = mr.allocate(5000);
    const b = new DeviceBuffer({ data: pattern(3000, 1), mr });
    mr.deallocate(a, 5000);
    expectForeignFree(thrown(() => mr.deallocate(a, 5000)));
    expect(mr.getAllocatedBytes()).toBe(3072);
    expectBytes(b.toBytes(), pattern(3000, 1));
    b.free();
    expect(mr.getAllocatedBytes()).toBe(0);
  });

  it('a wrong size at deallocate counts (and frees) what was allocated', () => {
    const mr = new LimitingResourceAdaptor(getCurrentDeviceResource(), 1 << 20);
    const a = mr.allocate(10_000);
    const b = mr.allocate(300);
    mr.deallocate(a, 1);
    expect(mr.getAllocatedBytes()).toBe(512);
    mr.deallocate(b, 1 << 19);
    expect(mr.getAllocatedBytes()).toBe(0);
  });

  it.runIf(onFake())('an upstream free that fails keeps the allocation counted, and a retry frees it', () => {
    const mr = new LimitingResourceAdaptor(new CudaMemoryResource(), 1 << 20);
    const live = fakeCuda.stats().liveAllocations;
    const ptr = mr.allocate(1000);
    fakeCuda.failNext('cuCtxGetCurrent', 1, 'CUDA_ERROR_LAUNCH_FAILED');
    expect(thrown(() => mr.deallocate(ptr, 1000)).code).toBe('ERR_CUDA');
    expect(mr.getAllocatedBytes()).toBe(1024);
    mr.deallocate(ptr, 1000);
    expect(mr.getAllocatedBytes()).toBe(0);
    expect(fakeCuda.stats().liveAllocations).toBe(live);
  });
});
