// The record of an allocation goes only when its memory does: a deallocate the upstream refuses for
// any reason other than "not mine" keeps it tracked (and counted), and a retry frees it.
import { CallbackMemoryResource } from '@rmmjs/callback';
import { CudaMemoryResource, getCurrentDeviceResource } from '@rmmjs/core';
import { TrackingResourceAdaptor } from '@rmmjs/tracking';
import { fakeCuda, onFake, thrown } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

describe('TrackingResourceAdaptor records', () => {
  it('an upstream deallocate that throws keeps the record; the retry forgets it', () => {
    const base = getCurrentDeviceResource();
    let failure: Error | undefined = new Error('upstream busy');
    const upstream = new CallbackMemoryResource(
      (nbytes, stream) => base.allocate(nbytes, stream),
      (ptr, nbytes, stream) => {
        if (failure !== undefined) throw failure;
        base.deallocate(ptr, nbytes, stream);
      },
    );
    const mr = new TrackingResourceAdaptor(upstream);
    const ptr = mr.allocate(1000);
    const other = mr.allocate(24);
    expect(thrown(() => mr.deallocate(ptr, 1000))).toBe(failure);
    expect(mr.getAllocatedBytes()).toBe(1024);
    expect(mr.getOutstandingAllocationCount()).toBe(2);
    failure = undefined;
    mr.deallocate(ptr, 1000);
    mr.deallocate(other, 24);
    expect(mr.getAllocatedBytes()).toBe(0);
    expect(mr.getOutstandingAllocationsStr()).toBe('');
  });

  it.runIf(onFake())('a CUDA failure on the free path keeps it too', () => {
    const mr = new TrackingResourceAdaptor(new CudaMemoryResource());
    const live = fakeCuda.stats().liveAllocations;
    const ptr = mr.allocate(1000);
    fakeCuda.failNext('cuCtxGetCurrent', 1, 'CUDA_ERROR_LAUNCH_FAILED');
    expect(thrown(() => mr.deallocate(ptr, 1000)).code).toBe('ERR_CUDA');
    expect(mr.getAllocatedBytes()).toBe(1000);
    mr.deallocate(ptr, 1000);
    expect(mr.getAllocatedBytes()).toBe(0);
    expect(fakeCuda.stats().liveAllocations).toBe(live);
  });
});
