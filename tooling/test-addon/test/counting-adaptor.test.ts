// The suites' meter: what it counts (each allocation rounded up to 256, as LimitingResourceAdaptor
// counts), what it forwards, and that it stands where any resource does (an upstream, a buffer's
// resource, a worker's current device resource).
import { DeviceBuffer, getCurrentDeviceResource, RMMError, setCurrentDeviceResource, Stream } from '@rmmjs/core';
import { expectBytes, pattern, runWorker, thrown } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';
import { CountingResourceAdaptor } from '../index.js';

describe('CountingResourceAdaptor', () => {
  it('counts the bytes outstanding, each allocation rounded up to 256, on any stream', () => {
    using mr = new CountingResourceAdaptor(getCurrentDeviceResource());
    using stream = new Stream();
    const a = mr.allocate(1);
    const b = mr.allocate(1000, stream);
    const c = mr.allocate(4096);
    expect(mr.getAllocatedBytes()).toBe(256 + 1024 + 4096);
    mr.deallocate(b, 1000, stream);
    expect(mr.getAllocatedBytes()).toBe(256 + 4096);
    mr.deallocate(a, 1);
    mr.deallocate(c, 4096);
    expect(mr.getAllocatedBytes()).toBe(0);
    expect(mr.allocate(0)).toBe(0n);
    expect(mr.getAllocatedBytes()).toBe(0);
  });

  it('is an adaptor of its own class over its upstream; buffers keep their bytes', () => {
    const upstream = getCurrentDeviceResource();
    using mr = new CountingResourceAdaptor(upstream);
    expect([mr.constructor.name, mr.upstreamMr, mr.device]).toEqual([
      'CountingResourceAdaptor',
      upstream,
      upstream.device,
    ]);
    const buffer = new DeviceBuffer({ data: pattern(5000, 1), mr });
    expect(buffer.mr).toBe(mr);
    expect(mr.getAllocatedBytes()).toBe(5120);
    expectBytes(buffer.toBytes(), pattern(5000, 1));
    buffer.free();
    expect(mr.getAllocatedBytes()).toBe(0);
  });

  it('a failed upstream allocation counts nothing', () => {
    using mr = new CountingResourceAdaptor(getCurrentDeviceResource());
    const error = thrown(() => mr.allocate(2 ** 50));
    expect([error.constructor.name, error.code]).toEqual(['OutOfMemoryError', 'ERR_RMM_OUT_OF_MEMORY']);
    expect(mr.getAllocatedBytes()).toBe(0);
  });

  it("counts a worker's allocations where the main thread reads them", async () => {
    using mr = new CountingResourceAdaptor(getCurrentDeviceResource());
    const previous = setCurrentDeviceResource(mr);
    try {
      const kept = await runWorker(new URL('./workers/allocates.js', import.meta.url));
      expect(mr.getAllocatedBytes()).toBe(512 + 768);
      mr.deallocate(kept[0], 300);
      mr.deallocate(kept[1], 700);
      expect(mr.getAllocatedBytes()).toBe(0);
    } finally {
      setCurrentDeviceResource(previous);
    }
  });

  it('after dispose its counter is RMMError ERR_RMM_DISPOSED', () => {
    const mr = new CountingResourceAdaptor(getCurrentDeviceResource());
    mr[Symbol.dispose]();
    const error = thrown(() => mr.getAllocatedBytes());
    expect(error).toBeInstanceOf(RMMError);
    expect(error.code).toBe('ERR_RMM_DISPOSED');
  });
});
