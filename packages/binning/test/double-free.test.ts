// The project's rule for double and foreign frees holds for what the adaptor serves from its
// upstream: RMMError ERR_RMM_LOGIC, passed on unchanged.
import { RMMError } from '@rmmjs/core';
import { BinningMemoryResource } from '@rmmjs/binning';
import { KiB, thrown } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';
import { availableUpstreams } from './helpers.js';

describe.each(availableUpstreams())('BinningMemoryResource over $name', ({ make }) => {
  it('freeing an upstream-served allocation twice, or a foreign address, is RMMError ERR_RMM_LOGIC', () => {
    const mr = new BinningMemoryResource(make(), { minSizeExponent: 10, maxSizeExponent: 12 });
    const keep = mr.allocate(64 * KiB); // above the largest bin: from the upstream
    const ptr = mr.allocate(64 * KiB);
    mr.deallocate(ptr, 64 * KiB);
    for (const foreign of [ptr, keep + 256n]) {
      const error = thrown(() => mr.deallocate(foreign, 64 * KiB));
      expect(error).toBeInstanceOf(RMMError);
      expect(error.code).toBe('ERR_RMM_LOGIC');
      expect(error.message).toContain('did not allocate or already deallocated');
    }
    mr.deallocate(keep, 64 * KiB);
  });

  // Found by the fuzzer (tooling/fuzz): memory served before a smaller bin was added was sent to
  // that bin when freed, which refused it: it could never be returned.
  it('a free goes back to the resource that served it, whatever bins were added since', () => {
    const mr = new BinningMemoryResource(make());
    const small = mr.allocate(100); // no bins yet: from the upstream
    const medium = mr.allocate(3000);
    mr.addBin(256);
    mr.addBin(4 * KiB);
    const binned = mr.allocate(100); // from the 256-byte bin now
    mr.deallocate(small, 100);
    mr.deallocate(medium, 3000);
    mr.deallocate(binned, 100);
    for (const [ptr, bytes] of [
      [small, 100],
      [binned, 100],
    ] as const) {
      expect(thrown(() => mr.deallocate(ptr, bytes)).message).toContain('did not allocate or already deallocated');
    }
    mr[Symbol.dispose]();
  });
});
