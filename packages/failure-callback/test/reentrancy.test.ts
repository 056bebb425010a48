// A failure callback that frees cached DeviceBuffers, among them the one whose resize or copy ran
// out of memory: the operation fails with ERR_RMM_DISPOSED, every byte goes back exactly once.
import { DeviceBuffer, RMMError, getCurrentDeviceResource } from '@rmmjs/core';
import { FailureCallbackResourceAdaptor } from '@rmmjs/failure-callback';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { expectBytes, pattern, thrown } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

const KiB = 1024;

/** A 64 KiB budget whose failure callback frees every cached buffer once. */
function cachedBudget() {
  const limited = new LimitingResourceAdaptor(getCurrentDeviceResource(), 64 * KiB);
  const cache: DeviceBuffer[] = [];
  const mr = new FailureCallbackResourceAdaptor(limited, () => {
    if (cache.length === 0) return false;
    for (const buffer of cache.splice(0)) buffer.free();
    return true;
  });
  const fill = (count: number) => {
    for (let i = 0; i < count; i++) cache.push(new DeviceBuffer({ data: pattern(8 * KiB, i), mr }));
  };
  return { limited, cache, mr, fill };
}

describe('a failure callback that frees the buffer being grown', () => {
  for (const grow of ['resize', 'reserve'] as const) {
    it(`${grow} -> ERR_RMM_DISPOSED and the budget is whole again`, () => {
      const { limited, cache, fill } = cachedBudget();
      fill(8);
      const buffer = cache[3];
      expect(limited.getAllocatedBytes()).toBe(64 * KiB);
      const error = thrown(() => buffer[grow](40 * KiB));
      expect(error).toBeInstanceOf(RMMError);
      expect(error.code).toBe('ERR_RMM_DISPOSED');
      expect(buffer.freed).toBe(true);
      expect(limited.getAllocatedBytes()).toBe(0);
    });
  }

  it('copy() of a cached buffer -> ERR_RMM_DISPOSED, nothing held', () => {
    const { limited, cache, fill } = cachedBudget();
    fill(8);
    const error = thrown(() => cache[0].copy());
    expect(error.code).toBe('ERR_RMM_DISPOSED');
    expect(limited.getAllocatedBytes()).toBe(0);
  });

  it('a buffer that is not cached grows once the cache is gone', () => {
    const { limited, mr, fill } = cachedBudget();
    const kept = new DeviceBuffer({ data: pattern(4 * KiB, 9), mr });
    fill(7);
    kept.resize(40 * KiB);
    expectBytes(kept.toBytes().subarray(0, 4 * KiB), pattern(4 * KiB, 9));
    expect(limited.getAllocatedBytes()).toBe(40 * KiB);
    kept.free();
    expect(limited.getAllocatedBytes()).toBe(0);
  });
});
