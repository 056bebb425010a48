// Buffers dropped without free() are garbage, not memory in use: before an allocation reports out of
// memory, the ones the collector found unreachable (whose finalizers wait for the event loop) are
// freed and the allocation is retried. A synchronous loop never lets the event loop turn.
import { CudaMemoryResource, DeviceBuffer, OutOfMemoryError } from '@rmmjs/core';
import { fakeCuda, onFake, thrown } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

const MiB = 1 << 20;

describe.runIf(onFake())('dropped buffers on a 256 MiB (fake) device', () => {
  it('a synchronous drop-only loop of 1 GiB in 1 MiB buffers never runs out', () => {
    const mr = new CudaMemoryResource();
    const live = fakeCuda.stats().liveAllocations;
    for (let i = 0; i < 1024; i++) new DeviceBuffer({ size: MiB, mr });
    expect(fakeCuda.stats().liveAllocations - live).toBeLessThanOrEqual(256);
  });

  it('big buffers dropped in a loop: 40 x 64 MiB', () => {
    for (let i = 0; i < 40; i++) new DeviceBuffer({ size: 64 * MiB });
  });

  it('what is still referenced stays: a request that cannot fit is OutOfMemoryError', () => {
    const held = Array.from({ length: 3 }, () => new DeviceBuffer({ size: 64 * MiB }));
    for (let i = 0; i < 10; i++) new DeviceBuffer({ size: 32 * MiB });
    expect(thrown(() => new DeviceBuffer({ size: 128 * MiB }))).toBeInstanceOf(OutOfMemoryError);
    expect(held.every((buffer) => buffer.size === 64 * MiB)).toBe(true);
    for (const buffer of held) buffer.free();
  });
});
