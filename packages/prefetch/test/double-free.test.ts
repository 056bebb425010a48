// The project's rule for double and foreign frees holds through the adaptor: RMMError
// ERR_RMM_LOGIC from every upstream that can tell, and the adaptor passes it on unchanged.
import { RMMError } from '@rmmjs/core';
import { PrefetchResourceAdaptor } from '@rmmjs/prefetch';
import { thrown } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';
import { availableUpstreams } from './upstreams.js';

describe.each(availableUpstreams())('PrefetchResourceAdaptor over $name', ({ make }) => {
  it('freeing twice, or an address it did not hand out, is RMMError ERR_RMM_LOGIC', () => {
    const upstream = make();
    const mr = new PrefetchResourceAdaptor(upstream);
    const keep = mr.allocate(4096);
    const ptr = mr.allocate(4096);
    mr.deallocate(ptr, 4096);
    for (const foreign of [ptr, keep + 256n]) {
      const error = thrown(() => mr.deallocate(foreign, 4096));
      expect(error).toBeInstanceOf(RMMError);
      expect(error.code).toBe('ERR_RMM_LOGIC');
      expect(error.message).toContain('did not allocate or already deallocated');
    }
    mr.deallocate(keep, 4096);
  });
});
