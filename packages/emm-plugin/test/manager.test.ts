import { RMMError, cuda, getPerDeviceResource } from '@rmmjs/core';
import { ManagedMemory, MappedMemory, MemoryPointer, PinnedMemory, RMMExternalMemoryManager } from '@rmmjs/emm-plugin';
import { onFake, runWorker, thrown } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';
import { fixtures } from './support.js';

describe('RMMExternalMemoryManager: the EMM interface', () => {
  const { manager, tracked } = fixtures();

  it('is interface version 1, a getter on the prototype', () => {
    const descriptor = Object.getOwnPropertyDescriptor(RMMExternalMemoryManager.prototype, 'interfaceVersion');
    expect(typeof descriptor?.get).toBe('function');
    expect(manager().interfaceVersion).toBe(1);
  });

  it('has the methods of the interface', () => {
    const methods = [
      'initialize',
      'memalloc',
      'memallocmanaged',
      'memhostalloc',
      'mempin',
      'getMemoryInfo',
      'getIpcHandle',
      'reset',
    ];
    for (const method of [...methods, 'deferCleanup']) {
      expect(typeof (RMMExternalMemoryManager.prototype as any)[method]).toBe('function');
    }
  });

  it('allocates on the current device by default, or on the device given', () => {
    expect(manager().device).toBe(cuda.getDevice());
    expect(manager({ device: 0 }).device).toBe(0);
  });

  it('refuses devices that do not exist and options that are not an object', () => {
    const devices = Math.max(cuda.getDeviceCount(), 1);
    const error = thrown(() => new RMMExternalMemoryManager({ device: devices }));
    expect(error).toBeInstanceOf(RangeError);
    expect(error.code).toBe('ERR_OUT_OF_RANGE');
    expect(error.message).toContain('"options.device"');
    expect(thrown(() => new RMMExternalMemoryManager({ device: -1 })).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => new RMMExternalMemoryManager({ device: '0' as unknown as number })).code).toBe(
      'ERR_INVALID_ARG_TYPE',
    );
    expect(thrown(() => new RMMExternalMemoryManager(null as unknown as {})).code).toBe('ERR_INVALID_ARG_TYPE');
  });

  it('initialize() may be called again and again, and keeps what was handed out', () => {
    const tracking = tracked();
    const mgr = manager();
    mgr.initialize();
    const memory = mgr.memalloc(1000);
    mgr.initialize();
    mgr.initialize();
    expect(memory.freed).toBe(false);
    expect(memory.size).toBe(1000);
    expect(tracking.getAllocatedBytes()).toBe(1000);
    memory.free();
  });

  it('initialize() makes the device resource of its device exist', () => {
    const mgr = manager();
    mgr.initialize();
    expect(getPerDeviceResource(mgr.device)).toBeDefined();
  });

  it('reset() may come before initialize(), and the manager stays usable', () => {
    const tracking = tracked();
    const mgr = manager();
    mgr.reset();
    mgr.initialize();
    const memory = mgr.memalloc(10);
    mgr.reset();
    expect(memory.freed).toBe(true);
    expect(tracking.getOutstandingAllocationCount()).toBe(0);
    const again = mgr.memalloc(20);
    expect(tracking.getAllocatedBytes()).toBe(20);
    again.free();
  });

  it('its memory classes are made by the manager only', () => {
    for (const Class of [MemoryPointer, ManagedMemory, MappedMemory, PinnedMemory]) {
      const error = thrown(() => new (Class as any)(Symbol('fake'), {}, null));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.code).toBe('ERR_INVALID_ARG_TYPE'); // a documented code, as core's abstract classes
      expect(error.message).toContain('cannot be constructed directly');
    }
  });

  it("a second manager does not see the first one's memory", () => {
    const tracking = tracked();
    const first = manager();
    const second = manager();
    const memory = first.memalloc(100);
    second.reset();
    expect(memory.freed).toBe(false);
    first.reset();
    expect(memory.freed).toBe(true);
    expect(tracking.getOutstandingAllocationCount()).toBe(0);
  });

  it('works in a worker thread, over the process-wide current resource', async () => {
    const tracking = tracked();
    const counts = await runWorker(new URL('./workers/manager.js', import.meta.url));
    expect(counts).toEqual([4096, true, true, 0]);
    expect(tracking.getOutstandingAllocationCount()).toBe(0);
  });

  it.runIf(onFake())("on another device, allocates from that device's resource", () => {
    const mgr = manager({ device: 1 });
    const memory = mgr.memalloc(256);
    expect(memory.device).toBe(1);
    expect(memory.buffer?.device).toBe(1);
    expect(memory.buffer?.mr).toBe(getPerDeviceResource(1));
    memory.free();
  });

  it('memory used after free() is ERR_RMM_DISPOSED', () => {
    tracked();
    const mgr = manager();
    const memory = mgr.memalloc(64);
    memory.free();
    for (const use of [() => memory.ptr, () => memory.size, () => memory.free(), () => memory.view(0)]) {
      const error = thrown(use);
      expect(error).toBeInstanceOf(RMMError);
      expect(error.code).toBe('ERR_RMM_DISPOSED');
      expect(error.message).toBe('MemoryPointer was freed and cannot be used');
    }
    memory[Symbol.dispose]();
  });
});
