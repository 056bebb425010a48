import { totalmem } from 'node:os';
import {
  CudaMemoryResource,
  DeviceBuffer,
  DeviceMemoryResource,
  SystemMemoryResource,
  availableDeviceMemory,
  cuda,
  getCurrentDeviceResource,
  getCurrentDeviceResourceType,
  getPerDeviceResource,
  getPerDeviceResourceType,
  isInitialized,
  registerReinitializeHook,
  setCurrentDeviceResource,
  setPerDeviceResource,
  unregisterReinitializeHook,
} from '@rmmjs/core';
import { runReinitializeHooks } from '@rmmjs/core/internal';
import { onHost, thrown, withCuda } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';
import { availableCases } from './resource-table.js';

const defaultType = () => (withCuda() ? CudaMemoryResource : SystemMemoryResource);

describe('the per-device registry', () => {
  it('starts with the default resource: Cuda with a GPU, System in host mode', () => {
    expect(isInitialized()).toBe(true);
    expect(getCurrentDeviceResourceType()).toBe(defaultType());
    expect(getCurrentDeviceResource()).toBeInstanceOf(defaultType());
    expect(getCurrentDeviceResource()).toBe(getCurrentDeviceResource());
    expect(getPerDeviceResourceType(0)).toBe(defaultType());
  });

  it('set returns the previous resource and get returns the same object that was set', () => {
    const original = getCurrentDeviceResource();
    for (const { make } of availableCases()) {
      const mr = make();
      const previous = setCurrentDeviceResource(mr);
      expect(getCurrentDeviceResource()).toBe(mr);
      expect(getPerDeviceResource(0)).toBe(mr);
      expect(getCurrentDeviceResourceType()).toBe(mr.constructor);
      const buffer = new DeviceBuffer({ size: 100 });
      expect(buffer.mr).toBe(mr);
      buffer.free();
      expect(setCurrentDeviceResource(previous)).toBe(mr);
      mr[Symbol.dispose]();
    }
    expect(getCurrentDeviceResource()).toBe(original);
  });

  it('the registry keeps a resource alive after its JS object is disposed', () => {
    const original = getCurrentDeviceResource();
    const mr = availableCases()[0].make();
    setPerDeviceResource(0, mr);
    mr[Symbol.dispose]();
    const current = getPerDeviceResource(0);
    expect(current).not.toBe(mr);
    expect(current.constructor).toBe(mr.constructor);
    const ptr = current.allocate(64);
    current.deallocate(ptr, 64);
    setPerDeviceResource(0, original);
  });

  it('bad input: non-resources, bad devices', () => {
    const notMr = thrown(() => setCurrentDeviceResource({} as never));
    expect(notMr).toBeInstanceOf(TypeError);
    expect(notMr.code).toBe('ERR_INVALID_ARG_TYPE');
    expect(notMr.message).toContain('DeviceMemoryResource');
    expect(thrown(() => setCurrentDeviceResource(null as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => setPerDeviceResource(0, 'mr' as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => getPerDeviceResource(-1)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => getPerDeviceResource(1.5)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => getPerDeviceResource('0' as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    const tooHigh = Math.max(1, cuda.getDeviceCount());
    const error = thrown(() => getPerDeviceResource(tooHigh));
    expect(error).toBeInstanceOf(RangeError);
    expect(error.code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => setPerDeviceResource(tooHigh, getCurrentDeviceResource())).code).toBe('ERR_OUT_OF_RANGE');
  });

  it('availableDeviceMemory is [free, total] with free <= total', () => {
    const [free, total] = availableDeviceMemory();
    expect(total).toBeGreaterThan(0);
    expect(free).toBeGreaterThan(0);
    expect(free).toBeLessThanOrEqual(total);
    if (onHost()) expect(total).toBe(totalmem());
  });

  it.runIf(withCuda() && cuda.getDeviceCount() > 1)('per-device entries are independent', () => {
    const zero = getPerDeviceResource(0);
    cuda.setDevice(1);
    try {
      const one = new CudaMemoryResource();
      expect(one.device).toBe(1);
      setPerDeviceResource(1, one);
      expect(getCurrentDeviceResource()).toBe(one);
      expect(getPerDeviceResource(0)).toBe(zero);
      const buffer = new DeviceBuffer({ size: 256 });
      expect(buffer.device).toBe(1);
      cuda.setDevice(0);
      expect(buffer.toBytes().length).toBe(256);
      expect(cuda.getDevice()).toBe(0);
      buffer.free();
      expect(cuda.getDevice()).toBe(0);
    } finally {
      cuda.setDevice(0);
    }
  });
});

describe('wrappers', () => {
  it('a native resource this isolate did not construct is wrapped as its class', () => {
    const mr = getCurrentDeviceResource();
    expect(mr).toBeInstanceOf(DeviceMemoryResource);
    expect(mr.constructor).toBe(defaultType());
  });
});

describe('reinitialize hooks', () => {
  it('run in reverse registration order with their arguments', () => {
    const calls: unknown[] = [];
    const one = () => calls.push(1);
    const two = () => calls.push(2);
    const three = (x: number) => calls.push(x);
    expect(registerReinitializeHook(one)).toBe(one);
    registerReinitializeHook(two);
    registerReinitializeHook(three, 3);
    runReinitializeHooks();
    expect(calls).toEqual([3, 2, 1]);
    for (const fn of [one, two, three]) unregisterReinitializeHook(fn);
  });

  it('unregister removes every registration', () => {
    const calls: unknown[] = [];
    const twice = (x: number) => calls.push(x);
    const other = () => calls.push('other');
    registerReinitializeHook(twice, 1);
    registerReinitializeHook(other);
    registerReinitializeHook(twice, 2);
    unregisterReinitializeHook(twice);
    runReinitializeHooks();
    expect(calls).toEqual(['other']);
    unregisterReinitializeHook(other);
    expect(thrown(() => (registerReinitializeHook as (fn: unknown) => unknown)('f')).code).toBe('ERR_INVALID_ARG_TYPE');
  });
});
