// The README's minimal array type: an array library that takes all its memory through the manager.
import { DeviceBuffer, setCurrentDeviceResource } from '@rmmjs/core';
import { RMMExternalMemoryManager, type MemoryPointer } from '@rmmjs/emm-plugin';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { describe, expect, it } from 'vitest';
import { fixtures } from './support.js';

class DeviceArray {
  static manager = new RMMExternalMemoryManager();

  constructor(
    readonly length: number,
    readonly memory: MemoryPointer = DeviceArray.manager.memalloc(length * 4),
  ) {}

  static fromHost(values: Float32Array): DeviceArray {
    const staging = DeviceArray.manager.memhostalloc(values.byteLength);
    staging.bytes.set(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
    const array = new DeviceArray(values.length);
    array.memory.buffer!.copyFromHost(staging.bytes);
    staging.free();
    return array;
  }

  slice(start: number, end = this.length): DeviceArray {
    return new DeviceArray(end - start, this.memory.view(start * 4, end * 4));
  }

  toHost(): Float32Array {
    const copy = new DeviceBuffer({ size: this.memory.size });
    copy.copyFromDevice(this.memory);
    const values = new Float32Array(copy.toBytes().buffer);
    copy.free();
    return values;
  }
}

describe('an array type over RMMExternalMemoryManager', () => {
  const { base, keep } = fixtures();

  it('takes its memory from the current device resource and slices without copies', () => {
    const limited = keep(new LimitingResourceAdaptor(base, 1 << 20));
    setCurrentDeviceResource(limited);
    DeviceArray.manager.initialize();
    const array = DeviceArray.fromHost(new Float32Array([1, 2, 3, 4, 5]));
    expect(limited.getAllocatedBytes()).toBe(256);
    const middle = array.slice(1, 4);
    expect(middle.memory.ptr).toBe(array.memory.ptr + 4n);
    expect([...middle.toHost()]).toEqual([2, 3, 4]);
    expect([...array.toHost()]).toEqual([1, 2, 3, 4, 5]);
    expect(limited.getAllocatedBytes()).toBe(256);
    DeviceArray.manager.reset();
    expect(middle.memory.freed).toBe(true);
    expect(limited.getAllocatedBytes()).toBe(0);
  });
});
