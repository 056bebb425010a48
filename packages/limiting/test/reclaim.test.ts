// Buffers dropped without free() are garbage, not memory in use: a synchronous loop that only drops
// them never runs out (the event loop never turns, so their finalizers never run on their own).
import { DeviceBuffer, OutOfMemoryError, getCurrentDeviceResource } from '@rmmjs/core';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { thrown } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

describe('reclaiming dropped DeviceBuffers before reporting out of memory', () => {
  it('a drop-only loop of 2 KiB buffers through a 1 MiB limit never fails', () => {
    const mr = new LimitingResourceAdaptor(getCurrentDeviceResource(), '1 MiB');
    for (let i = 0; i < 20_000; i++) new DeviceBuffer({ size: 2000 + (i % 48), mr });
    expect(mr.getAllocatedBytes()).toBeLessThanOrEqual(1 << 20);
  });

  it('also for copy(), resize() and raw allocate()', () => {
    const mr = new LimitingResourceAdaptor(getCurrentDeviceResource(), '1 MiB');
    const source = new DeviceBuffer({ size: 100_000, mr });
    for (let i = 0; i < 200; i++) source.copy();
    for (let i = 0; i < 200; i++) new DeviceBuffer({ size: 1000, mr }).resize(100_000);
    for (let i = 0; i < 200; i++) {
      new DeviceBuffer({ size: 100_000, mr });
      mr.deallocate(mr.allocate(100_000), 100_000);
    }
    source.free();
  });

  it('buffers still referenced are never taken: out of memory stays out of memory', () => {
    const mr = new LimitingResourceAdaptor(getCurrentDeviceResource(), '64 KiB');
    const held = Array.from({ length: 16 }, () => new DeviceBuffer({ size: 4096, mr }));
    const error = thrown(() => new DeviceBuffer({ size: 4096, mr }));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(held.every((buffer) => !buffer.freed && buffer.size === 4096)).toBe(true);
    expect(mr.getAllocatedBytes()).toBe(64 * 1024);
    for (const buffer of held) buffer.free();
  });
});
