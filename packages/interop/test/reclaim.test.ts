// A DLPack capsule from toDLPack holds its buffer's memory. Dropped without being consumed it is
// garbage as a dropped DeviceBuffer is: its bytes count as external memory, and its memory is given
// back before an allocation reports out of memory (core's reclaim), not only when its finalizer
// runs (when the event loop turns, after the allocation has failed).
import { DeviceBuffer, getCurrentDeviceResource } from '@rmmjs/core';
import { native } from '@rmmjs/core/internal';
import { fromDLPack, toDLPack } from '@rmmjs/interop';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { MiB, dropOnlyLoops } from '@rmmjs/test-helpers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

let mr: LimitingResourceAdaptor;
beforeEach(() => {
  mr = new LimitingResourceAdaptor(getCurrentDeviceResource(), 64 * MiB);
});
afterEach(() => {
  mr[Symbol.dispose]();
});

describe('drop-only loops of capsules over a 64 MiB limit, synchronous and with the event loop turning', () => {
  it('capsules dropped with their buffers: 3 x the limit in 4 MiB, each way', async () => {
    await dropOnlyLoops(() => toDLPack(new DeviceBuffer({ size: 4 * MiB, mr })), 48);
    expect(mr.getAllocatedBytes()).toBeLessThanOrEqual(64 * MiB);
  });

  it('capsules of buffers freed at once: only the capsules hold the memory', async () => {
    await dropOnlyLoops(() => {
      const buffer = new DeviceBuffer({ size: 4 * MiB, mr });
      toDLPack(buffer, { dtype: 'float32' });
      buffer.free();
    }, 48);
    expect(mr.getAllocatedBytes()).toBeLessThanOrEqual(64 * MiB);
  });
});

describe('what a capsule holds, as the collector sees it', () => {
  // The bytes this thread's tracked owners (buffers, capsules) report to V8 as external memory.
  const held = () => native.heldBytes(false);

  it('counts its bytes until it is consumed or disposed; a consumer buffer counts them instead', () => {
    const before = held();
    const buffer = new DeviceBuffer({ size: 8 * MiB, mr });
    const capsule = toDLPack(buffer);
    expect(held() - before).toBe(16 * MiB); // the buffer's and the capsule's hold on the same memory
    buffer.free();
    expect(held() - before).toBe(8 * MiB);
    const consumer = fromDLPack(capsule);
    expect(held() - before).toBe(8 * MiB); // the consumer's buffer; the capsule holds nothing now
    consumer.free();
    expect(held() - before).toBe(0);
    expect(mr.getAllocatedBytes()).toBe(0);

    const other = new DeviceBuffer({ size: 4 * MiB, mr });
    const disposed = toDLPack(other);
    other.free();
    disposed[Symbol.dispose]();
    expect(held() - before).toBe(0);
    expect(mr.getAllocatedBytes()).toBe(0);
  });

  it('one dropped unconsumed gives its memory back at the next out-of-memory, before its finalizer runs', () => {
    const buffer = new DeviceBuffer({ size: 48 * MiB, mr });
    toDLPack(buffer); // dropped
    buffer.free();
    expect(mr.getAllocatedBytes()).toBe(48 * MiB);
    const big = new DeviceBuffer({ size: 32 * MiB, mr }); // does not fit beside it
    expect(mr.getAllocatedBytes()).toBe(32 * MiB);
    big.free();
  });
});
