import {
  cuda,
  CudaAsyncMemoryResource,
  CudaError,
  CudaMemoryResource,
  DeviceBuffer,
  type DeviceMemoryResource,
  getCurrentDeviceResource,
  ManagedMemoryResource,
  PinnedHostMemoryResource,
  RMMError,
  setCurrentDeviceResource,
  Stream,
  SystemMemoryResource,
} from '@rmmjs/core';
import { PrefetchResourceAdaptor } from '@rmmjs/prefetch';
import {
  disposeAfterEach,
  expectBytes,
  fakeCuda,
  onFake,
  onHost,
  pattern,
  restoreCurrentDeviceResourceAfterEach,
  thrown,
  withCuda,
} from '@rmmjs/test-helpers';
import { beforeEach, describe, expect, it } from 'vitest';
import { availableUpstreams } from './upstreams.js';

const NEVER = -2; // cuda.lastPrefetchLocation of memory never prefetched (or not managed)
// Prefetches run on their stream: the location is the last prefetch's once the device is idle.
const prefetchLocation = (ptr: bigint, nbytes: number) => {
  cuda.synchronize();
  return cuda.lastPrefetchLocation(ptr, nbytes);
};
const CONCURRENT_MANAGED_ACCESS = 89;
const SIZE = 34567; // RMM's tests draw one size in [1000, 100000]

describe.each(availableUpstreams())('PrefetchResourceAdaptor over $name', ({ make, managed }) => {
  let upstream: DeviceMemoryResource;
  const keep = disposeAfterEach();
  beforeEach(() => {
    upstream = keep(make());
  });
  const prefetchedTo = (device: number) => (managed ? device : NEVER);

  it('RMM test PointerAndSize: each allocation is prefetched to the device', () => {
    const mr = new PrefetchResourceAdaptor(upstream);
    const stream = new Stream();
    const buffer = new DeviceBuffer({ size: SIZE, stream, mr });
    expect(prefetchLocation(buffer.ptr, SIZE)).toBe(prefetchedTo(mr.device));
    buffer.prefetch(mr.device, stream);
    expect(prefetchLocation(buffer.ptr, SIZE)).toBe(prefetchedTo(mr.device));
    buffer.free();
    stream[Symbol.dispose]();
  });

  it('RMM test NotPrefetchedWithoutAdaptor', () => {
    const buffer = new DeviceBuffer({ size: SIZE, mr: upstream });
    expect(prefetchLocation(buffer.ptr, SIZE)).toBe(NEVER);
    buffer.free();
  });

  it('RMM python test: DeviceBuffer.toDevice through the current resource, then prefetch()', () => {
    const mr = new PrefetchResourceAdaptor(upstream);
    const previous = setCurrentDeviceResource(mr);
    try {
      const buffer = DeviceBuffer.toDevice(new Uint8Array(256));
      expect(prefetchLocation(buffer.ptr, 256)).toBe(prefetchedTo(cuda.getDevice()));
      buffer.prefetch();
      expect(prefetchLocation(buffer.ptr, 256)).toBe(prefetchedTo(cuda.getDevice()));
      expectBytes(buffer.toBytes(), new Uint8Array(256));
      buffer.free();
    } finally {
      setCurrentDeviceResource(previous);
    }
  });

  it('raw allocations on a stream are prefetched, and data round-trips', () => {
    const mr = new PrefetchResourceAdaptor(upstream);
    const stream = new Stream({ nonBlocking: true });
    const ptrs = [1, 1000, SIZE].map((nbytes) => [mr.allocate(nbytes, stream), nbytes] as const);
    for (const [ptr, nbytes] of ptrs) expect(prefetchLocation(ptr, nbytes)).toBe(prefetchedTo(mr.device));
    expect(new Set(ptrs.map(([ptr]) => ptr)).size).toBe(3);
    for (const [ptr, nbytes] of ptrs) mr.deallocate(ptr, nbytes, stream);
    const buffer = new DeviceBuffer({ data: pattern(5000, 9), stream, mr });
    expectBytes(buffer.toBytes(stream), pattern(5000, 9));
    buffer.free();
    stream.synchronize();
    stream[Symbol.dispose]();
  });

  it('0 bytes: 0n, no prefetch', () => {
    const mr = new PrefetchResourceAdaptor(upstream);
    expect(mr.allocate(0)).toBe(0n);
    mr.deallocate(0n, 0);
  });

  // upstreamMr, getUpstream() and the upstream's lifetime are the conformance suite's 'upstream' case.
  it('still prefetches once the upstream is disposed (the adaptor keeps it alive)', () => {
    const mr = new PrefetchResourceAdaptor(upstream);
    upstream[Symbol.dispose]();
    const buffer = new DeviceBuffer({ data: pattern(1000, 4), mr });
    expect(prefetchLocation(buffer.ptr, 1000)).toBe(prefetchedTo(mr.device));
    expectBytes(buffer.toBytes(), pattern(1000, 4));
    buffer.free();
  });
});

describe('PrefetchResourceAdaptor', () => {
  restoreCurrentDeviceResourceAfterEach();

  it('as the current resource over memory that is not managed: a pass-through', () => {
    setCurrentDeviceResource(new PrefetchResourceAdaptor(getCurrentDeviceResource()));
    const buffer = new DeviceBuffer({ data: pattern(777, 2) });
    expect(prefetchLocation(buffer.ptr, 777)).toBe(NEVER);
    expectBytes(buffer.toBytes(), pattern(777, 2));
    buffer.free();
  });

  it('bad arguments', () => {
    for (const upstream of [{}, undefined, null, 'mr', getCurrentDeviceResource]) {
      const error = thrown(() => new PrefetchResourceAdaptor(upstream as never));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
      expect(error.message).toContain('"upstream"');
    }
    const disposed = withCuda() ? new ManagedMemoryResource() : new SystemMemoryResource();
    disposed[Symbol.dispose]();
    const error = thrown(() => new PrefetchResourceAdaptor(disposed));
    expect(error).toBeInstanceOf(RMMError);
    expect(error.code).toBe('ERR_RMM_DISPOSED');
    const mr = new PrefetchResourceAdaptor(getCurrentDeviceResource());
    expect(thrown(() => mr.allocate(-1)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => mr.allocate(1, null as never)).code).toBe('ERR_INVALID_ARG_TYPE');
  });

  it.runIf(onHost())('host mode: prefetching is a no-op', () => {
    const mr = new PrefetchResourceAdaptor(new SystemMemoryResource());
    const ptr = mr.allocate(SIZE, new Stream());
    expect(ptr).not.toBe(0n);
    expect(prefetchLocation(ptr, SIZE)).toBe(NEVER);
    mr.deallocate(ptr, SIZE);
  });

  it.runIf(withCuda())("prefetches to the resource's device, not the current one", () => {
    const device = cuda.getDeviceCount() > 1 ? 1 : 0;
    const current = cuda.getDevice();
    cuda.setDevice(device);
    const managed = new ManagedMemoryResource();
    cuda.setDevice(0);
    try {
      const mr = new PrefetchResourceAdaptor(managed);
      expect(mr.device).toBe(device);
      const ptr = mr.allocate(4096);
      expect(prefetchLocation(ptr, 4096)).toBe(device);
      mr.deallocate(ptr, 4096);
    } finally {
      cuda.setDevice(current);
    }
  });

  it.runIf(onFake())("one prefetch per allocation, on the allocation's stream", () => {
    const mr = new PrefetchResourceAdaptor(new ManagedMemoryResource());
    fakeCuda.reset();
    const ptrs = Array.from({ length: 5 }, (_, i) => mr.allocate(100 * (i + 1)));
    expect(fakeCuda.stats().calls.cuMemPrefetchAsync_v2).toBe(5);
    ptrs.forEach((ptr, i) => mr.deallocate(ptr, 100 * (i + 1)));
    // A stream the driver no longer knows fails the prefetch, so the prefetch was issued on it.
    const stream = new Stream();
    const gone = Stream.fromHandle(stream.handle);
    stream[Symbol.dispose]();
    const live = fakeCuda.stats().liveAllocations;
    fakeCuda.reset();
    const error = thrown(() => mr.allocate(100, gone));
    expect(error).toBeInstanceOf(CudaError);
    expect(error.cudaErrorName).toBe('CUDA_ERROR_INVALID_HANDLE');
    expect(error.message).toContain('cuMemPrefetchAsync_v2');
    const { calls } = fakeCuda.stats();
    expect([calls.cuMemAllocManaged, calls.cuMemPrefetchAsync_v2, calls.cuMemFree_v2]).toEqual([1, 1, 1]);
    expect(fakeCuda.stats().liveAllocations).toBe(live);
  });

  it.runIf(onFake())('device-only upstreams cost no driver call per allocation', () => {
    for (const [upstream, prefetches] of [
      [new CudaMemoryResource(), 0],
      [new CudaAsyncMemoryResource(), 0],
      [new ManagedMemoryResource(), 1],
      [new PinnedHostMemoryResource(), 1], // host-accessible: tried; the driver says it cannot, a no-op
    ] as const) {
      const mr = new PrefetchResourceAdaptor(upstream);
      fakeCuda.reset();
      const ptr = mr.allocate(1000);
      const { calls } = fakeCuda.stats();
      expect([upstream.constructor.name, calls.cuMemPrefetchAsync_v2 ?? 0]).toEqual([
        upstream.constructor.name,
        prefetches,
      ]);
      mr.deallocate(ptr, 1000);
    }
  });

  it.runIf(onFake())('a prefetch failure: CudaError, and the allocation goes back to the upstream', () => {
    const mr = new PrefetchResourceAdaptor(new ManagedMemoryResource());
    const live = fakeCuda.stats().liveAllocations;
    fakeCuda.failNext('cuMemPrefetchAsync_v2', 1, 'CUDA_ERROR_INVALID_DEVICE');
    const error = thrown(() => mr.allocate(SIZE));
    expect(error).toBeInstanceOf(CudaError);
    expect(error.code).toBe('ERR_CUDA');
    expect(error.cudaErrorName).toBe('CUDA_ERROR_INVALID_DEVICE');
    expect(error.cudaErrorCode).toBe(101);
    expect(error.message).toContain('cuMemPrefetchAsync_v2');
    expect(fakeCuda.stats().liveAllocations).toBe(live);
    fakeCuda.failNext('cuMemPrefetchAsync_v2', 1, 'CUDA_ERROR_OUT_OF_MEMORY');
    expect(thrown(() => new DeviceBuffer({ size: 1000, mr })).cudaErrorName).toBe('CUDA_ERROR_OUT_OF_MEMORY');
    expect(fakeCuda.stats().liveAllocations).toBe(live);
    const ptr = mr.allocate(SIZE);
    expect(prefetchLocation(ptr, SIZE)).toBe(mr.device);
    mr.deallocate(ptr, SIZE);
    expect(fakeCuda.stats().liveAllocations).toBe(live);
  });

  it.runIf(onFake())('CUDA_ERROR_INVALID_VALUE from the prefetch is not a failure (as rmm::prefetch)', () => {
    const mr = new PrefetchResourceAdaptor(new ManagedMemoryResource());
    fakeCuda.failNext('cuMemPrefetchAsync_v2', 1, 'CUDA_ERROR_INVALID_VALUE');
    const ptr = mr.allocate(SIZE);
    expect(prefetchLocation(ptr, SIZE)).toBe(NEVER);
    mr.deallocate(ptr, SIZE);
  });

  it.runIf(onFake())('a device without concurrent managed access is not prefetched to (as RMM)', () => {
    fakeCuda.setAttribute(0, CONCURRENT_MANAGED_ACCESS, 0);
    let mr: PrefetchResourceAdaptor;
    try {
      mr = new PrefetchResourceAdaptor(new ManagedMemoryResource());
    } finally {
      fakeCuda.setAttribute(0, CONCURRENT_MANAGED_ACCESS, 1);
    }
    fakeCuda.reset();
    const ptr = mr.allocate(SIZE);
    expect(prefetchLocation(ptr, SIZE)).toBe(NEVER);
    expect(fakeCuda.stats().calls.cuMemPrefetchAsync_v2).toBe(0);
    mr.deallocate(ptr, SIZE);
  });

  it.runIf(onFake())('the device query failing at construction: CudaError', () => {
    const managed = new ManagedMemoryResource();
    fakeCuda.failNext('cuDeviceGetAttribute', 1, 'CUDA_ERROR_NOT_INITIALIZED');
    const error = thrown(() => new PrefetchResourceAdaptor(managed));
    expect(error).toBeInstanceOf(CudaError);
    expect(error.cudaErrorName).toBe('CUDA_ERROR_NOT_INITIALIZED');
    expect(error.message).toContain('cuDeviceGetAttribute');
  });

  it.runIf(onFake())('no leak: many buffers, an adaptor disposed before its buffers', () => {
    const live = fakeCuda.stats().liveAllocations;
    const mr = new PrefetchResourceAdaptor(new ManagedMemoryResource());
    const buffers = Array.from({ length: 50 }, (_, i) => new DeviceBuffer({ size: 100 + i, mr }));
    expect(fakeCuda.stats().liveAllocations).toBe(live + 50);
    mr[Symbol.dispose]();
    for (const buffer of buffers) buffer.free();
    expect(fakeCuda.stats().liveAllocations).toBe(live);
  });
});
