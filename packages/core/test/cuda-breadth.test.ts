// What needs a CUDA driver (the fake one in CI, the real one on a GPU): managed memory,
// memory pools, IPC, stream priorities and several devices.
import {
  CudaAsyncMemoryResource,
  CudaAsyncViewMemoryResource,
  CudaMemoryResource,
  DeviceBuffer,
  ManagedMemoryResource,
  PinnedHostMemoryResource,
  Stream,
  cuda,
  getCurrentDeviceResource,
  getPerDeviceResource,
  setPerDeviceResource,
} from '@rmmjs/core';
import { expectBytes, pattern, thrown, withCuda } from '@rmmjs/test-helpers';
import { afterEach, describe, expect, it } from 'vitest';

const MEMPOOL_SUPPORTED_HANDLE_TYPES = 119;
const POSIX_FILE_DESCRIPTOR = 1;
const twoDevices = () => withCuda() && cuda.getDeviceCount() > 1;

describe.runIf(withCuda())('managed memory', () => {
  it('prefetch migrates it: the last prefetch location follows', () => {
    const mr = new ManagedMemoryResource();
    const buffer = new DeviceBuffer({ data: pattern(1 << 20, 1), mr });
    expect(cuda.lastPrefetchLocation(buffer.ptr, buffer.size)).toBe(-2);
    buffer.prefetch();
    buffer.stream.synchronize();
    expect(cuda.lastPrefetchLocation(buffer.ptr, buffer.size)).toBe(0);
    buffer.prefetch(-1);
    buffer.stream.synchronize();
    expect(cuda.lastPrefetchLocation(buffer.ptr, buffer.size)).toBe(-1);
    expectBytes(buffer.toBytes(), pattern(1 << 20, 1));
    buffer.free();
    mr[Symbol.dispose]();
  });

  it('prefetch of memory that is not managed is a no-op', () => {
    const buffer = new DeviceBuffer({ size: 4096, mr: new CudaMemoryResource() });
    buffer.prefetch();
    expect(cuda.lastPrefetchLocation(buffer.ptr, buffer.size)).toBe(-2);
    buffer.free();
  });
});

describe.runIf(withCuda())('memory pools', () => {
  it('CudaAsyncMemoryResource with an initial size and a release threshold serves allocations', () => {
    const mr = new CudaAsyncMemoryResource({ initialPoolSize: '64 MiB', releaseThreshold: '32 MiB' });
    using stream = new Stream();
    const buffers = [1, 1000, 1 << 20, 10 << 20].map(
      (size, i) => new DeviceBuffer({ data: pattern(size, i), mr, stream }),
    );
    buffers.forEach((buffer, i) => expectBytes(buffer.toBytes(stream), pattern(buffer.size, i)));
    for (const buffer of buffers) buffer.free();
    stream.synchronize();
    mr[Symbol.dispose]();
  });

  it('enableIpc works where the device exports POSIX file descriptors, else says it cannot', () => {
    const supported = (cuda.deviceAttribute(MEMPOOL_SUPPORTED_HANDLE_TYPES) & POSIX_FILE_DESCRIPTOR) !== 0;
    if (supported) {
      const mr = new CudaAsyncMemoryResource({ enableIpc: true });
      const ptr = mr.allocate(1 << 20);
      mr.deallocate(ptr, 1 << 20);
      mr[Symbol.dispose]();
    } else {
      expect(thrown(() => new CudaAsyncMemoryResource({ enableIpc: true })).message).toMatch(
        /Requested IPC memory handle type not supported$/,
      );
    }
  });

  it('views of the default pool are equal and report the pool', () => {
    const pool = cuda.getDefaultMemPool();
    const a = new CudaAsyncViewMemoryResource(pool);
    const b = new CudaAsyncViewMemoryResource(pool);
    expect(a.poolHandle()).toBe(pool);
    expect(a.isEqual(b)).toBe(true);
    const ptr = a.allocate(4096);
    b.deallocate(ptr, 4096); // memory from one view can be freed by the other
    a[Symbol.dispose]();
    b[Symbol.dispose]();
  });

  it("poolHandle refuses the other class's receiver (found by the fuzzer)", () => {
    using owning = new CudaAsyncMemoryResource();
    using view = new CudaAsyncViewMemoryResource(cuda.getDefaultMemPool());
    const onOwning = thrown(() => CudaAsyncViewMemoryResource.prototype.poolHandle.call(owning));
    expect(onOwning.code).toBe('ERR_INVALID_ARG_TYPE');
    expect(onOwning.message).toBe('The "this" argument must be an instance of CudaAsyncViewMemoryResource');
    const onView = thrown(() => CudaAsyncMemoryResource.prototype.poolHandle.call(view));
    expect(onView.code).toBe('ERR_INVALID_ARG_TYPE');
    expect(onView.message).toBe('The "this" argument must be an instance of CudaAsyncMemoryResource');
  });
});

describe.runIf(withCuda())('streams', () => {
  it('take a priority and order copies', () => {
    using high = new Stream({ priority: -1, nonBlocking: true });
    const buffer = new DeviceBuffer({ data: pattern(5000, 3), stream: high });
    const copy = new DeviceBuffer({ size: 5000, stream: high });
    copy.copyFromDevice(buffer, high);
    expectBytes(copy.toBytes(high), pattern(5000, 3));
    buffer.free();
    copy.free();
  });
});

describe.runIf(twoDevices())('two devices', () => {
  afterEach(() => cuda.setDevice(0));

  it('every resource remembers its device; buffers use their own whatever is current', () => {
    cuda.setDevice(1);
    const resources = [new CudaMemoryResource(), new CudaAsyncMemoryResource(), new PinnedHostMemoryResource()];
    using stream = new Stream();
    cuda.setDevice(0);
    expect(stream.device).toBe(1);
    for (const mr of resources) {
      expect(mr.device).toBe(1);
      const buffer = new DeviceBuffer({ data: pattern(3000, 4), mr, stream });
      expect(buffer.device).toBe(1);
      expect(cuda.getDevice()).toBe(0);
      expectBytes(buffer.toBytes(stream), pattern(3000, 4));
      const onZero = new DeviceBuffer({ size: 3000 });
      onZero.copyFromDevice(buffer, stream);
      stream.synchronize();
      expectBytes(onZero.toBytes(), pattern(3000, 4));
      buffer.resize(10000, stream);
      buffer.free();
      onZero.free();
      expect(cuda.getDevice()).toBe(0);
      mr[Symbol.dispose]();
    }
  });

  it("a view of a device's default pool belongs to that device, whichever is current", () => {
    using view = new CudaAsyncViewMemoryResource(cuda.getDefaultMemPool(1));
    expect(view.device).toBe(1);
    cuda.setDevice(1);
    using stream = new Stream();
    cuda.setDevice(0);
    const buffer = new DeviceBuffer({ data: pattern(4096, 6), mr: view, stream });
    expect(buffer.device).toBe(1);
    expectBytes(buffer.toBytes(stream), pattern(4096, 6));
    buffer.free();
    // Another pool's view: the device current at its creation.
    using own = new CudaAsyncMemoryResource();
    using other = new CudaAsyncViewMemoryResource(own.poolHandle());
    expect(other.device).toBe(0);
  });

  it('per-device registry entries are independent', () => {
    const zero = getPerDeviceResource(0);
    cuda.setDevice(1);
    const one = new CudaAsyncMemoryResource();
    const previous = setPerDeviceResource(1, one);
    expect(getCurrentDeviceResource()).toBe(one);
    cuda.setDevice(0);
    expect(getCurrentDeviceResource()).toBe(zero);
    expect(getPerDeviceResource(1)).toBe(one);
    setPerDeviceResource(1, previous);
    one[Symbol.dispose]();
  });

  it('managed memory prefetches to the second device', () => {
    const mr = new ManagedMemoryResource();
    const buffer = new DeviceBuffer({ size: 1 << 20, mr });
    buffer.prefetch(1);
    buffer.stream.synchronize();
    expect(cuda.lastPrefetchLocation(buffer.ptr, buffer.size)).toBe(1);
    buffer.free();
  });
});
