import {
  DEFAULT_STREAM,
  DeviceBuffer,
  OutOfMemoryError,
  Stream,
  cuda,
  getCurrentDeviceResource,
  getPerDeviceResource,
  setCurrentDeviceResource,
  setPerDeviceResource,
} from '@rmmjs/core';
import { rmmAllocator } from '@rmmjs/function-allocator';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { TrackingResourceAdaptor } from '@rmmjs/tracking';
import {
  disposeAfterEach,
  expectBytes,
  onFake,
  pattern,
  restoreCurrentDeviceResourceAfterEach,
  runWorker,
  thrown,
} from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

describe('rmmAllocator', () => {
  const base = restoreCurrentDeviceResourceAfterEach();
  const keep = disposeAfterEach();
  const tracked = () => {
    const tracking = keep(new TrackingResourceAdaptor(base));
    setCurrentDeviceResource(tracking);
    return tracking;
  };

  it('allocates a DeviceBuffer of nbytes from the current device resource, on the default stream', () => {
    const tracking = tracked();
    const buffer = rmmAllocator(1000);
    expect(buffer).toBeInstanceOf(DeviceBuffer);
    expect(buffer.size).toBe(1000);
    expect(buffer.ptr).not.toBe(0n);
    expect(buffer.ptr % 256n).toBe(0n);
    expect(buffer.stream).toBe(DEFAULT_STREAM);
    expect(buffer.mr).toBe(tracking);
    expect(tracking.getAllocatedBytes()).toBe(1000);
    expect(tracking.getOutstandingAllocationCount()).toBe(1);
    buffer.free();
    expect(tracking.getAllocatedBytes()).toBe(0);
  });

  it('allocates on the stream given, and the memory holds bytes', () => {
    tracked();
    const stream = keep(new Stream());
    const buffer = rmmAllocator(4096, stream);
    expect(buffer.stream).toBe(stream);
    const bytes = pattern(4096, 7);
    buffer.copyFromHost(bytes, stream);
    expectBytes(buffer.toBytes(stream), bytes);
    buffer.free();
  });

  it('gives an empty buffer for 0 bytes', () => {
    const tracking = tracked();
    const buffer = rmmAllocator(0);
    expect(buffer.size).toBe(0);
    expect(buffer.ptr).toBe(0n);
    expect(tracking.getOutstandingAllocationCount()).toBe(0);
    buffer.free();
  });

  it('is the function an array library takes: (byteLength) => memory', () => {
    const tracking = tracked();
    // A minimal array type that takes its memory from an allocator function.
    class Float32DeviceArray {
      readonly memory: DeviceBuffer;
      constructor(
        readonly length: number,
        allocate: (byteLength: number) => DeviceBuffer,
      ) {
        this.memory = allocate(length * 4);
      }
    }
    const array = new Float32DeviceArray(250, rmmAllocator);
    expect(array.memory.size).toBe(1000);
    expect(tracking.getAllocatedBytes()).toBe(1000);
    array.memory.free();
  });

  it('throws OutOfMemoryError when the resource refuses, taking nothing', () => {
    const limited = keep(new LimitingResourceAdaptor(base, 4096));
    const tracking = keep(new TrackingResourceAdaptor(limited));
    setCurrentDeviceResource(tracking);
    const error = thrown(() => rmmAllocator(8192));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.code).toBe('ERR_RMM_OUT_OF_MEMORY');
    expect(error.message).toContain('Exceeded memory limit');
    expect(tracking.getOutstandingAllocationCount()).toBe(0);
    expect(limited.getAllocatedBytes()).toBe(0);
  });

  it.each([
    ['a string', '10', TypeError, 'ERR_INVALID_ARG_TYPE'],
    ['a bigint', 10n, TypeError, 'ERR_INVALID_ARG_TYPE'],
    ['an object', {}, TypeError, 'ERR_INVALID_ARG_TYPE'],
    ['undefined', undefined, TypeError, 'ERR_INVALID_ARG_TYPE'],
    ['negative', -1, RangeError, 'ERR_OUT_OF_RANGE'],
    ['fractional', 1.5, RangeError, 'ERR_OUT_OF_RANGE'],
    ['NaN', NaN, RangeError, 'ERR_OUT_OF_RANGE'],
    ['Infinity', Infinity, RangeError, 'ERR_OUT_OF_RANGE'],
    ['2^53', 2 ** 53, RangeError, 'ERR_OUT_OF_RANGE'],
  ])('refuses nbytes that is %s', (_, nbytes, Class, code) => {
    const tracking = tracked();
    const error = thrown(() => rmmAllocator(nbytes as number));
    expect(error).toBeInstanceOf(Class);
    expect(error.code).toBe(code);
    expect(error.message).toContain('"nbytes"');
    expect(tracking.getOutstandingAllocationCount()).toBe(0);
  });

  it('refuses a null stream and objects that are not streams', () => {
    const tracking = tracked();
    const nullStream = thrown(() => rmmAllocator(16, null as unknown as Stream));
    expect(nullStream).toBeInstanceOf(TypeError);
    expect(nullStream.code).toBe('ERR_INVALID_ARG_TYPE');
    expect(nullStream.message).toContain('stream argument cannot be null');
    const notStream = thrown(() => rmmAllocator(16, { handle: 0n } as unknown as Stream));
    expect(notStream).toBeInstanceOf(TypeError);
    expect(notStream.code).toBe('ERR_INVALID_ARG_TYPE');
    expect(notStream.message).toContain('"stream"');
    expect(tracking.getOutstandingAllocationCount()).toBe(0);
  });

  it.runIf(onFake())("allocates on the current device, from that device's resource", () => {
    const device1 = getPerDeviceResource(1);
    const tracking = keep(new TrackingResourceAdaptor(device1));
    setPerDeviceResource(1, tracking);
    cuda.setDevice(1);
    try {
      const buffer = rmmAllocator(512);
      expect(buffer.device).toBe(1);
      expect(tracking.getAllocatedBytes()).toBe(512);
      buffer.free();
      expect(tracking.getAllocatedBytes()).toBe(0);
    } finally {
      cuda.setDevice(0);
      setPerDeviceResource(1, device1);
    }
  });

  it('allocates from the process-wide current resource in a worker thread', async () => {
    const tracking = tracked();
    const sizes = await runWorker(new URL('./workers/rmm-allocator.js', import.meta.url));
    expect(sizes).toEqual([1000, 0]);
    expect(getCurrentDeviceResource()).toBe(tracking);
  });
});
