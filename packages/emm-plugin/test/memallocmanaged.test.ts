import { DeviceBuffer, OutOfMemoryError, cuda } from '@rmmjs/core';
import { ManagedMemory, MemoryPointer } from '@rmmjs/emm-plugin';
import { fakeCuda, onFake, thrown } from '@rmmjs/test-helpers';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeDelta, fixtures } from './support.js';

describe('memallocmanaged', () => {
  const { manager, tracked } = fixtures();
  const fake = fakeDelta();
  afterEach(() => {
    if (onFake()) {
      fakeCuda.clearFaults();
      expect(fake.now().allocations).toBe(0);
      fake.since();
    }
  });

  it.each([
    [undefined, true],
    [true, true],
    [false, false],
  ])('attachGlobal %s: managed memory, from the driver, not the device resource', (attachGlobal, expected) => {
    const tracking = tracked();
    const memory = manager().memallocmanaged(4096, attachGlobal);
    expect(memory).toBeInstanceOf(ManagedMemory);
    expect(memory).toBeInstanceOf(MemoryPointer);
    expect(memory.attachGlobal).toBe(expected);
    expect(memory.size).toBe(4096);
    expect(memory.ptr % 256n).toBe(0n);
    expect(memory.buffer).toBe(null);
    expect(tracking.getOutstandingAllocationCount()).toBe(0);
    if (onFake()) {
      expect(fake.now().allocations).toBe(1);
      expect(cuda.lastPrefetchLocation(memory.ptr, 4096)).toBe(-2); // managed memory, never prefetched
    }
    // A copy from it reads 4096 bytes of live memory (the fake driver checks the range).
    const target = new DeviceBuffer({ size: 4096 });
    target.copyFromDevice(memory);
    expect(target.toBytes().length).toBe(4096);
    target.free();
    memory.free();
    expect(thrown(() => memory.ptr).code).toBe('ERR_RMM_DISPOSED');
    expect(thrown(() => memory.ptr).message).toBe('ManagedMemory was freed and cannot be used');
  });

  it('refuses bad sizes and a non-boolean attachGlobal', () => {
    const mgr = manager();
    expect(thrown(() => mgr.memallocmanaged(-5)).code).toBe('ERR_OUT_OF_RANGE');
    const error = thrown(() => mgr.memallocmanaged(5, 1 as unknown as boolean));
    expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
    expect(error.message).toContain('"attachGlobal"');
  });

  it('0 bytes: nothing is allocated', () => {
    const memory = manager().memallocmanaged(0);
    expect(memory.ptr).toBe(0n);
    memory.free();
  });

  it.runIf(onFake())('out of device memory is OutOfMemoryError', () => {
    const error = thrown(() => manager().memallocmanaged(2 ** 40));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.message).toContain('cuMemAllocManaged');
  });
});
