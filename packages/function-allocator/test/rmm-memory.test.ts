import { DeviceBuffer, OutOfMemoryError, RMMError, Stream, setCurrentDeviceResource } from '@rmmjs/core';
import { RmmMemory, rmmMemoryAllocator } from '@rmmjs/function-allocator';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { TrackingResourceAdaptor } from '@rmmjs/tracking';
import {
  disposeAfterEach,
  expectBytes,
  pattern,
  restoreCurrentDeviceResourceAfterEach,
  thrown,
} from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

// What @rapidsai/cuda's setDefaultAllocator checks of the memory an allocator returns.
const isMemoryLike = (x: any) => x != null && typeof x.ptr === 'number' && typeof x.byteLength === 'number';

describe('rmmMemoryAllocator and RmmMemory', () => {
  const base = restoreCurrentDeviceResourceAfterEach();
  const keep = disposeAfterEach();
  const tracked = () => {
    const tracking = keep(new TrackingResourceAdaptor(base));
    setCurrentDeviceResource(tracking);
    return tracking;
  };

  it("has the shape of @rapidsai/cuda's Memory, over a DeviceBuffer from the current resource", () => {
    const tracking = tracked();
    const memory = rmmMemoryAllocator(8);
    expect(memory).toBeInstanceOf(RmmMemory);
    expect(isMemoryLike(memory)).toBe(true);
    expect(memory.byteLength).toBe(8);
    expect(memory.ptr).toBe(Number(memory.buffer.ptr));
    expect(memory.ptr).toBeGreaterThan(0);
    expect(memory.device).toBe(memory.buffer.device);
    expect(memory.buffer).toBeInstanceOf(DeviceBuffer);
    expect(memory.buffer.mr).toBe(tracking);
    expect(Object.prototype.toString.call(memory)).toBe('[object RmmMemory]');
    expect(tracking.getAllocatedBytes()).toBe(8);
    memory.free();
    expect(memory.freed).toBe(true);
    expect(tracking.getAllocatedBytes()).toBe(0);
  });

  it('allocates on the stream given', () => {
    tracked();
    const stream = keep(new Stream());
    const memory = new RmmMemory(64, stream);
    expect(memory.buffer.stream).toBe(stream);
    memory[Symbol.dispose]();
  });

  it('slices copies, with the indices of ArrayBuffer.prototype.slice', () => {
    const tracking = tracked();
    const bytes = pattern(100, 3);
    using memory = rmmMemoryAllocator(100);
    memory.buffer.copyFromHost(bytes);
    const cases: Array<[number | undefined, number | undefined]> = [
      [undefined, undefined],
      [10, 20],
      [-30, undefined],
      [-30, -10],
      [90, 1000],
      [50, 10],
      [1000, undefined],
      [2.9, 7.9],
      [NaN, 5],
    ];
    for (const [start, end] of cases) {
      const expected = bytes.slice(start, end);
      const copy = memory.slice(start, end);
      expect(copy.byteLength).toBe(expected.length);
      expect(copy.buffer.stream).toBe(memory.buffer.stream);
      if (expected.length > 0) expect(copy.ptr).not.toBe(memory.ptr);
      expectBytes(copy.buffer.toBytes(), expected);
      copy.free();
    }
    expect(tracking.getOutstandingAllocationCount()).toBe(1);
  });

  it("slices from the memory's own resource, not from the current one", () => {
    const own = tracked();
    using memory = rmmMemoryAllocator(100);
    memory.buffer.copyFromHost(pattern(100, 5));
    const other = tracked();
    const copy = memory.slice(10, 50);
    expect(copy.buffer.mr).toBe(own);
    expect([own.getOutstandingAllocationCount(), own.getAllocatedBytes()]).toEqual([2, 140]);
    expect(other.getAllocatedBytes()).toBe(0);
    expectBytes(copy.buffer.toBytes(), pattern(100, 5).slice(10, 50));
    // Also once its resource's handle is disposed: the memory keeps the resource.
    own[Symbol.dispose]();
    const again = memory.slice(0, 8);
    expect(other.getAllocatedBytes()).toBe(0);
    expectBytes(again.buffer.toBytes(), pattern(100, 5).slice(0, 8));
    copy.free();
    again.free();
  });

  it('refuses slice indices that are not numbers', () => {
    tracked();
    using memory = rmmMemoryAllocator(10);
    const error = thrown(() => memory.slice('1' as unknown as number));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
    expect(error.message).toContain('"start"');
    expect(thrown(() => memory.slice(0, 1n as unknown as number)).message).toContain('"end"');
  });

  it('is disposed once: a second free() and use after free() are ERR_RMM_DISPOSED', () => {
    tracked();
    const memory = rmmMemoryAllocator(10);
    memory.free();
    memory[Symbol.dispose]();
    for (const use of [() => memory.free(), () => memory.ptr, () => memory.byteLength, () => memory.slice()]) {
      const error = thrown(use);
      expect(error).toBeInstanceOf(RMMError);
      expect(error.code).toBe('ERR_RMM_DISPOSED');
    }
  });

  it('throws OutOfMemoryError when the resource refuses', () => {
    const limited = keep(new LimitingResourceAdaptor(base, 1024));
    setCurrentDeviceResource(limited);
    const error = thrown(() => rmmMemoryAllocator(2048));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(limited.getAllocatedBytes()).toBe(0);
  });

  it('refuses bad sizes and streams', () => {
    const tracking = tracked();
    expect(thrown(() => rmmMemoryAllocator(-1)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => rmmMemoryAllocator('8' as unknown as number)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => rmmMemoryAllocator(8, null as unknown as Stream)).message).toContain(
      'stream argument cannot be null',
    );
    expect(thrown(() => new RmmMemory(1.5)).message).toContain('"byteLength"');
    expect(tracking.getOutstandingAllocationCount()).toBe(0);
  });
});
