import {
  CudaMemoryResource,
  DeviceBuffer,
  OutOfMemoryError,
  getCurrentDeviceResource,
  setCurrentDeviceResource,
} from '@rmmjs/core';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { fakeCuda, onFake, pattern, thrown, withCuda, expectBytes } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

const base = () => getCurrentDeviceResource();

describe('LimitingResourceAdaptor', () => {
  it('RMM test: limit 1 MiB, two 512 KiB buffers, then one byte fails', () => {
    const limit = 1 << 20;
    const mr = new LimitingResourceAdaptor(base(), limit);
    expect(mr.getAllocationLimit()).toBe(limit);
    const previous = setCurrentDeviceResource(mr);
    try {
      const buffers = [new DeviceBuffer({ size: limit / 2 }), new DeviceBuffer({ size: limit / 2 })];
      expect(mr.getAllocatedBytes()).toBe(1048576);
      const error = thrown(() => new DeviceBuffer({ size: 1 }));
      expect(error).toBeInstanceOf(OutOfMemoryError);
      expect(error.code).toBe('ERR_RMM_OUT_OF_MEMORY');
      expect(error.message).toBe('Exceeded memory limit (failed to allocate 1.000000 B)');
      expect(mr.getAllocatedBytes()).toBe(1048576);
      for (const buffer of buffers) buffer.free();
      expect(mr.getAllocatedBytes()).toBe(0);
    } finally {
      setCurrentDeviceResource(previous);
    }
  });

  it('counts align_up(bytes, 256)', () => {
    const mr = new LimitingResourceAdaptor(base(), 10_000);
    const a = mr.allocate(1);
    expect(mr.getAllocatedBytes()).toBe(256);
    const b = mr.allocate(257);
    expect(mr.getAllocatedBytes()).toBe(768);
    mr.deallocate(a, 1);
    mr.deallocate(b, 257);
    expect(mr.getAllocatedBytes()).toBe(0);
    expect(mr.allocate(0)).toBe(0n);
    expect(mr.getAllocatedBytes()).toBe(0);
  });

  it('an allocation of exactly the remaining bytes succeeds', () => {
    const mr = new LimitingResourceAdaptor(base(), 1024);
    const ptr = mr.allocate(1024);
    expect(thrown(() => mr.allocate(1)).message).toContain('Exceeded memory limit');
    mr.deallocate(ptr, 1024);
  });

  it('nested limiters: the inner limit and the outer limit both apply', () => {
    const outer = new LimitingResourceAdaptor(base(), 4096);
    const inner = new LimitingResourceAdaptor(outer, 2048);
    const a = inner.allocate(2048);
    expect(inner.getAllocatedBytes()).toBe(2048);
    expect(outer.getAllocatedBytes()).toBe(2048);
    expect(thrown(() => inner.allocate(256)).code).toBe('ERR_RMM_OUT_OF_MEMORY');
    const b = outer.allocate(2048);
    expect(thrown(() => outer.allocate(256)).code).toBe('ERR_RMM_OUT_OF_MEMORY');
    inner.deallocate(a, 2048);
    outer.deallocate(b, 2048);
    expect(outer.getAllocatedBytes()).toBe(0);
  });

  it('keeps its upstream alive and exposes it', () => {
    const upstream = withCuda() ? new CudaMemoryResource() : base();
    const mr = new LimitingResourceAdaptor(upstream, '1 MiB');
    expect(mr.upstreamMr).toBe(upstream);
    expect(mr.getUpstream()).toBe(upstream);
    expect(mr.getAllocationLimit()).toBe(1 << 20);
    if (withCuda()) upstream[Symbol.dispose]();
    const buffer = new DeviceBuffer({ data: pattern(1000, 1), mr });
    expectBytes(buffer.toBytes(), pattern(1000, 1));
    buffer.free();
  });

  it('bad arguments', () => {
    expect(thrown(() => new LimitingResourceAdaptor({} as never, 10)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => new LimitingResourceAdaptor(base(), -1)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => new LimitingResourceAdaptor(base(), '1k')).code).toBe('ERR_INVALID_ARG_VALUE');
    expect(thrown(() => new LimitingResourceAdaptor(base(), undefined as never)).code).toBe('ERR_INVALID_ARG_TYPE');
  });

  it.runIf(onFake())('an upstream failure rolls the counter back', () => {
    const mr = new LimitingResourceAdaptor(new CudaMemoryResource(), 1 << 20);
    fakeCuda.failNext('cuMemAlloc_v2', 1, 2);
    expect(thrown(() => mr.allocate(1000)).code).toBe('ERR_RMM_OUT_OF_MEMORY');
    expect(mr.getAllocatedBytes()).toBe(0);
  });
});
