import { DeviceBuffer, OutOfMemoryError, RMMError, setCurrentDeviceResource } from '@rmmjs/core';
import { MemoryPointer } from '@rmmjs/emm-plugin';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { MiB, dropOnlyLoops, expectBytes, pattern, thrown } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';
import { fixtures, runWithGc } from './support.js';

describe('memalloc', () => {
  const { base, keep, manager, tracked } = fixtures();

  it('allocates from the current device resource, through a DeviceBuffer it keeps', () => {
    const tracking = tracked();
    const memory = manager().memalloc(1000);
    expect(memory).toBeInstanceOf(MemoryPointer);
    expect(memory.size).toBe(1000);
    expect(memory.ptr).not.toBe(0n);
    expect(memory.ptr % 256n).toBe(0n);
    expect(memory.owner).toBe(memory);
    expect(memory.offset).toBe(0);
    expect(memory.buffer).toBeInstanceOf(DeviceBuffer);
    expect(memory.buffer!.ptr).toBe(memory.ptr);
    expect(memory.buffer!.mr).toBe(tracking);
    expect(tracking.getAllocatedBytes()).toBe(1000);
    memory.free();
    expect(memory.freed).toBe(true);
    expect(memory.buffer!.freed).toBe(true);
    expect(tracking.getAllocatedBytes()).toBe(0);
  });

  it('takes the current resource of the moment', () => {
    const first = tracked();
    const mgr = manager();
    const a = mgr.memalloc(100);
    const second = tracked();
    const b = mgr.memalloc(200);
    expect(first.getAllocatedBytes()).toBe(100);
    expect(second.getAllocatedBytes()).toBe(200);
    a.free();
    b.free();
  });

  it('gives 0n for 0 bytes', () => {
    const tracking = tracked();
    const memory = manager().memalloc(0);
    expect(memory.ptr).toBe(0n);
    expect(memory.size).toBe(0);
    expect(memory.view(0).size).toBe(0);
    expect(tracking.getOutstandingAllocationCount()).toBe(0);
    memory.free();
  });

  it('exposes the CUDA Array Interface, which copies read', () => {
    tracked();
    const memory = manager().memalloc(512);
    const bytes = pattern(512, 11);
    memory.buffer!.copyFromHost(bytes);
    expect(memory.cudaArrayInterface).toEqual({
      data: [memory.ptr, false],
      shape: [512],
      strides: null,
      typestr: '|u1',
      version: 3,
    });
    const copy = new DeviceBuffer({ size: 512 });
    copy.copyFromDevice(memory);
    expectBytes(copy.toBytes(), bytes);
    copy.free();
    memory.free();
  });

  it('views are parts of the memory that keep it, own none, and die with it', () => {
    const tracking = tracked();
    const memory = manager().memalloc(1024);
    const bytes = pattern(1024, 5);
    memory.buffer!.copyFromHost(bytes);
    const view = memory.view(100, 300);
    expect(view).toBeInstanceOf(MemoryPointer);
    expect(view.ptr).toBe(memory.ptr + 100n);
    expect(view.size).toBe(200);
    expect(view.owner).toBe(memory);
    expect(view.offset).toBe(100);
    expect(view.buffer).toBe(memory.buffer);
    const inner = view.view(50);
    expect(inner.ptr).toBe(memory.ptr + 150n);
    expect(inner.size).toBe(150);
    expect(inner.owner).toBe(memory);
    expect(inner.offset).toBe(150);
    const copy = new DeviceBuffer({ size: 150 });
    copy.copyFromDevice(inner);
    expectBytes(copy.toBytes(), bytes.subarray(150, 300));
    copy.free();

    const error = thrown(() => view.free());
    expect(error).toBeInstanceOf(RMMError);
    expect(error.code).toBe('ERR_RMM_LOGIC');
    expect(error.message).toContain('is a view and owns no memory');
    view[Symbol.dispose]();
    expect(tracking.getAllocatedBytes()).toBe(1024);
    memory.free();
    expect(view.freed).toBe(true);
    expect(inner.freed).toBe(true);
    expect(thrown(() => view.ptr).code).toBe('ERR_RMM_DISPOSED');
    expect(thrown(() => inner.view(0)).code).toBe('ERR_RMM_DISPOSED');
    expect(thrown(() => view.free()).code).toBe('ERR_RMM_DISPOSED');
  });

  it('refuses views outside the memory', () => {
    tracked();
    const memory = manager().memalloc(100);
    expect(thrown(() => memory.view(0, 101)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => memory.view(60, 50)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => memory.view(101)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => memory.view(-1)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => memory.view('1' as unknown as number)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(memory.view(100).size).toBe(0);
    memory.free();
  });

  it('throws OutOfMemoryError when the resource refuses, and takes nothing', () => {
    const limited = keep(new LimitingResourceAdaptor(base, 4096));
    setCurrentDeviceResource(limited);
    const error = thrown(() => manager().memalloc(8192));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.code).toBe('ERR_RMM_OUT_OF_MEMORY');
    expect(limited.getAllocatedBytes()).toBe(0);
  });

  it.each([
    ['a string', '8', 'ERR_INVALID_ARG_TYPE'],
    ['a bigint', 8n, 'ERR_INVALID_ARG_TYPE'],
    ['undefined', undefined, 'ERR_INVALID_ARG_TYPE'],
    ['negative', -8, 'ERR_OUT_OF_RANGE'],
    ['fractional', 8.5, 'ERR_OUT_OF_RANGE'],
    ['NaN', NaN, 'ERR_OUT_OF_RANGE'],
    ['beyond 2^53 - 1', 2 ** 53, 'ERR_OUT_OF_RANGE'],
  ])('refuses a size that is %s', (_, size, code) => {
    const tracking = tracked();
    const error = thrown(() => manager().memalloc(size as number));
    expect(error.code).toBe(code);
    expect(error.message).toContain('"size"');
    expect(tracking.getOutstandingAllocationCount()).toBe(0);
  });

  it('keeps the buffer alive while the memory (or a view of it) is, and the collector frees it after', () => {
    const run = runWithGc('keeps-the-buffer');
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('4096 0');
  });

  // Memory dropped without free() is garbage as a dropped DeviceBuffer is: reclaimed before an
  // allocation reports out of memory. The manager's table of what it handed out must not keep it
  // alive to the end of the synchronous job (as a WeakRef to it does).
  it('drop-only loops over a 64 MiB limit do not run out (3 x the limit in 4 MiB), synchronous and with the event loop turning', async () => {
    const limited = keep(new LimitingResourceAdaptor(base, 64 * MiB));
    setCurrentDeviceResource(limited);
    const mgr = manager();
    await dropOnlyLoops(() => mgr.memalloc(4 * MiB), 48);
    await dropOnlyLoops(() => mgr.memalloc(4 * MiB).view(MiB), 48); // a view keeps its memory, and goes with it
    expect(limited.getAllocatedBytes()).toBeLessThanOrEqual(64 * MiB);
    mgr.reset();
  });
});
