// The registry and resources are process-wide: worker threads share them.
import { DeviceBuffer, ManagedMemoryResource, getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { expectBytes, pattern, runWorker, withCuda } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';
import { availableCases } from './resource-table.js';

const workerModule = (name: string) => new URL(`./workers/${name}.js`, import.meta.url);

describe('worker threads', () => {
  it('a worker sees the resource the main thread set, as its class', async () => {
    const mr = availableCases()[0].make();
    const previous = setCurrentDeviceResource(mr);
    try {
      const seen = await runWorker(workerModule('sees-current'));
      expect(seen).toEqual([mr.constructor.name, [1, 2, 3]]);
    } finally {
      setCurrentDeviceResource(previous);
      mr[Symbol.dispose]();
    }
  });

  it('a resource set by a worker outlives the worker', async () => {
    const previous = getCurrentDeviceResource();
    const name = await runWorker(workerModule('sets-current'), { workerData: { className: availableCases()[0].name } });
    const current = getCurrentDeviceResource();
    expect(current.constructor.name).toBe(name);
    const buffer = new DeviceBuffer({ data: pattern(100, 1) });
    expectBytes(buffer.toBytes(), pattern(100, 1));
    buffer.free();
    setCurrentDeviceResource(previous);
  });

  it.runIf(withCuda())('a fresh worker (no context yet) can query pointers', async () => {
    const mr = new ManagedMemoryResource();
    const ptr = mr.allocate(4096);
    try {
      const location = await runWorker(workerModule('prefetch-location'), { workerData: { ptr } });
      expect(location).toBe(-2);
    } finally {
      mr.deallocate(ptr, 4096);
    }
  });

  it('four workers allocate and free concurrently through one resource', async () => {
    const results = await Promise.all(
      [1, 2, 3, 4].map((seed) => runWorker(workerModule('buffers'), { workerData: { seed } })),
    );
    expect(results).toEqual([200, 200, 200, 200]);
  });
});
