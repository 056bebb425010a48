// The registry and resources are process-wide: worker threads share them.
import { DeviceBuffer, ManagedMemoryResource, getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { expectBytes, pattern, runInWorker, withCuda } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';
import { availableCases } from './resource-table.js';

const runWorker = (source: string) => runInWorker(source);

describe('worker threads', () => {
  it('a worker sees the resource the main thread set, as its class', async () => {
    const mr = availableCases()[0].make();
    const previous = setCurrentDeviceResource(mr);
    try {
      const seen = await runWorker(`
        const mr = core.getCurrentDeviceResource();
        const buffer = new core.DeviceBuffer({ data: new Uint8Array([1, 2, 3]) });
        const bytes = [...buffer.toBytes()];
        buffer.free();
        return [mr.constructor.name, bytes];`);
      expect(seen).toEqual([mr.constructor.name, [1, 2, 3]]);
    } finally {
      setCurrentDeviceResource(previous);
      mr[Symbol.dispose]();
    }
  });

  it('a resource set by a worker outlives the worker', async () => {
    const previous = getCurrentDeviceResource();
    const name = await runWorker(`
      const mr = new core.${availableCases()[0].name}();
      core.setCurrentDeviceResource(mr);
      return mr.constructor.name;`);
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
      const location = await runWorker(`return core.cuda.lastPrefetchLocation(${ptr}n, 4096);`);
      expect(location).toBe(-2);
    } finally {
      mr.deallocate(ptr, 4096);
    }
  });

  it('four workers allocate and free concurrently through one resource', async () => {
    const results = await Promise.all(
      [1, 2, 3, 4].map((seed) =>
        runWorker(`
          let ok = 0;
          for (let i = 0; i < 200; i++) {
            const data = new Uint8Array(1000 + i).fill((${seed} * 31 + i) & 0xff);
            const buffer = new core.DeviceBuffer({ data });
            const back = buffer.toBytes();
            if (back.every((b) => b === data[0])) ok++;
            buffer.free();
          }
          return ok;`),
      ),
    );
    expect(results).toEqual([200, 200, 200, 200]);
  });
});
