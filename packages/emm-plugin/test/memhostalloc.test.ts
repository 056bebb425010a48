import { CudaError, DeviceBuffer, OutOfMemoryError } from '@rmmjs/core';
import { MappedMemory, MemoryPointer, PinnedMemory } from '@rmmjs/emm-plugin';
import { expectBytes, fakeCuda, onFake, onHost, pattern, runInProcess, thrown } from '@rmmjs/test-helpers';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeDelta, fixtures } from './support.js';

describe('memhostalloc', () => {
  const { manager } = fixtures();
  const fake = fakeDelta();
  afterEach(() => {
    if (onFake()) {
      fakeCuda.clearFaults();
      expect(fake.now().allocations).toBe(0);
      fake.since();
    }
  });

  it('gives page-locked memory that JavaScript reads and writes through bytes', () => {
    const memory = manager().memhostalloc(1000);
    expect(memory).toBeInstanceOf(PinnedMemory);
    expect(memory).not.toBeInstanceOf(MemoryPointer);
    expect(memory.size).toBe(1000);
    expect(memory.hostPtr).not.toBe(0n);
    expect(memory.hostPtr % 256n).toBe(0n);
    expect(memory.hostOwner).toBe(null);
    expect(memory.bytes).toBeInstanceOf(Uint8Array);
    expect(memory.bytes.length).toBe(1000);
    const bytes = pattern(1000, 4);
    memory.bytes.set(bytes);
    const device = DeviceBuffer.toDevice(memory.bytes);
    expectBytes(device.toBytes(), bytes);
    device.free();
    if (onFake()) {
      expect(fake.now().allocations).toBe(1);
      expect(fake.now().calls('cuMemHostGetDevicePointer_v2')).toBe(0);
    }
    memory.free();
  });

  it('mapped: a MappedMemory whose ptr the device uses (cuMemHostGetDevicePointer)', () => {
    const memory = manager().memhostalloc(4096, { mapped: true });
    expect(memory).toBeInstanceOf(MappedMemory);
    expect(memory).toBeInstanceOf(MemoryPointer);
    const mapped = memory as MappedMemory;
    expect(mapped.ptr).not.toBe(0n);
    expect(mapped.size).toBe(4096);
    expect(mapped.hostPtr).not.toBe(0n);
    if (!onFake()) expect(mapped.ptr).toBe(mapped.hostPtr);
    if (onFake()) expect(fake.now().calls('cuMemHostGetDevicePointer_v2')).toBe(1);
    // What the host writes, the device reads at ptr.
    const bytes = pattern(4096, 9);
    mapped.bytes.set(bytes);
    const device = new DeviceBuffer({ size: 4096 });
    device.copyFromDevice(mapped);
    expectBytes(device.toBytes(), bytes);
    device.free();
    expect(mapped.view(96).ptr).toBe(mapped.ptr + 96n);
    mapped.free();
  });

  it.each([
    [{ portable: true }],
    [{ wc: true }],
    [{ portable: true, wc: true, mapped: true }],
    [{ mapped: false, portable: false, wc: false }],
  ])('takes the flags %o', (options) => {
    const memory = manager().memhostalloc(256, options);
    expect(memory.size).toBe(256);
    memory.bytes[255] = 1;
    memory.free();
  });

  it('free() takes the bytes away from JavaScript at once (the ArrayBuffer is detached)', () => {
    const memory = manager().memhostalloc(512);
    const bytes = memory.bytes;
    const buffer = bytes.buffer;
    memory.free();
    expect(memory.freed).toBe(true);
    expect(bytes.length).toBe(0);
    expect(buffer.byteLength).toBe(0);
    for (const use of [() => memory.bytes, () => memory.hostPtr, () => memory.size, () => memory.free()]) {
      const error = thrown(use);
      expect(error.code).toBe('ERR_RMM_DISPOSED');
      expect(error.message).toBe('PinnedMemory was freed and cannot be used');
    }
    memory[Symbol.dispose]();
    if (onFake()) expect(fake.now().allocations).toBe(0);
  });

  it('memory whose ArrayBuffer JavaScript moved (transfer()) stays until the moved one goes; free() used to free it under it', () => {
    const transfer = 'transfer' in ArrayBuffer.prototype ? [] : ['--harmony-rab-gsab-transfer']; // Node 20
    const run = runInProcess(new URL('./children/frees-a-moved-buffer.js', import.meta.url), {
      nodeArgs: ['--expose-gc', ...transfer],
    });
    expect(run.signal).toBe(null);
    expect(run.stderr).toBe('');
    const live = onFake() ? [1, 0] : [null, null];
    expect(JSON.parse(run.stdout)).toEqual({ length: 4 << 20, kept: true, afterFree: live[0], afterCollect: live[1] });
  });

  it('0 bytes: nothing is allocated', () => {
    const memory = manager().memhostalloc(0, { mapped: true }) as MappedMemory;
    expect(memory.size).toBe(0);
    expect(memory.ptr).toBe(0n);
    expect(memory.hostPtr).toBe(0n);
    expect(memory.bytes.length).toBe(0);
    if (onFake()) expect(fake.now().calls('cuMemHostAlloc')).toBe(0);
    memory.free();
  });

  it('refuses bad sizes and options', () => {
    const mgr = manager();
    expect(thrown(() => mgr.memhostalloc(-1)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => mgr.memhostalloc('1' as unknown as number)).code).toBe('ERR_INVALID_ARG_TYPE');
    for (const key of ['mapped', 'portable', 'wc']) {
      const error = thrown(() => mgr.memhostalloc(8, { [key]: 1 }));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
      expect(error.message).toContain(`"options.${key}"`);
    }
    expect(thrown(() => mgr.memhostalloc(8, null as unknown as {})).code).toBe('ERR_INVALID_ARG_TYPE');
  });

  it.runIf(onFake())('out of memory in the driver is OutOfMemoryError; other failures CudaError', () => {
    const mgr = manager();
    fakeCuda.failNext('cuMemHostAlloc', 1, 'CUDA_ERROR_OUT_OF_MEMORY');
    const oom = thrown(() => mgr.memhostalloc(100));
    expect(oom).toBeInstanceOf(OutOfMemoryError);
    expect(oom.message).toContain('failed to allocate 100 bytes');
    expect(oom.message).toContain('cuMemHostAlloc');
    fakeCuda.failNext('cuMemHostAlloc', 1, 'CUDA_ERROR_INVALID_VALUE');
    const invalid = thrown(() => mgr.memhostalloc(100));
    expect(invalid).toBeInstanceOf(CudaError);
    expect(invalid.code).toBe('ERR_CUDA');
    expect(invalid.cudaErrorName).toBe('CUDA_ERROR_INVALID_VALUE');
    fakeCuda.failNext('cuMemHostGetDevicePointer_v2', 1, 'CUDA_ERROR_NOT_SUPPORTED');
    const unmapped = thrown(() => mgr.memhostalloc(100, { mapped: true }));
    expect(unmapped).toBeInstanceOf(CudaError);
    expect(unmapped.message).toContain('cuMemHostGetDevicePointer_v2');
    expect(fake.now().allocations).toBe(0);
  });

  it.runIf(onFake())('waits for the device, then frees; a failed free can be tried again', () => {
    const memory = manager().memhostalloc(100);
    fake.since();
    fakeCuda.failNext('cuMemFreeHost', 1, 'CUDA_ERROR_LAUNCH_FAILED');
    const error = thrown(() => memory.free());
    expect(error).toBeInstanceOf(CudaError);
    expect(error.message).toContain('cuMemFreeHost');
    expect(memory.freed).toBe(false);
    expect(fake.now().allocations).toBe(0); // still allocated: nothing changed since
    memory.free();
    expect(memory.freed).toBe(true);
    expect(fake.now().allocations).toBe(-1);
    expect(fake.now().calls('cuCtxSynchronize')).toBe(2);
    fake.since();
  });

  it.runIf(onHost())('stands in with host memory in host mode', () => {
    const memory = manager().memhostalloc(64, { mapped: true }) as MappedMemory;
    expect(memory.ptr).toBe(memory.hostPtr);
    memory.free();
  });
});
