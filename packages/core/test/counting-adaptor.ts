// test/addon/counting_adaptor.c as a package would present it in JavaScript: a resource in plain C
// that forwards to its upstream and counts allocations, deallocations and bytes outstanding.
import { UpstreamResourceAdaptor, type DeviceMemoryResource } from '@rmmjs/core';
import { loadAddon, registerResourceClass, resourceHandle } from '@rmmjs/core/addon';
import type { ResourceHandle } from '@rmmjs/core/internal';

export interface Counts {
  allocations: number;
  deallocations: number;
  bytesOutstanding: number;
}

export interface CountingAddon {
  create(upstream: ResourceHandle, limit?: number): ResourceHandle;
  counts(mr: ResourceHandle): Counts;
}

export const counting = loadAddon<CountingAddon>(
  import.meta.url,
  '../build/test-addons/rmmjs_counting_adaptor',
  'counting-adaptor',
);

export class CountingResourceAdaptor extends UpstreamResourceAdaptor {
  /** `limit`: the most bytes outstanding; more is OutOfMemoryError "Exceeded memory limit" (default: none). */
  constructor(upstream: DeviceMemoryResource, limit?: number) {
    super(counting.create(resourceHandle(upstream, 'upstream'), limit));
  }
  counts(): Counts {
    return counting.counts(resourceHandle(this, 'this'));
  }
}
registerResourceClass('CountingResourceAdaptor', CountingResourceAdaptor);
