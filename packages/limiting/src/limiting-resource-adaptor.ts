import { type DeviceMemoryResource, UpstreamResourceAdaptor } from '@rmmjs/core';
import { registerResourceClass, resourceHandle, validateSizeOption } from '@rmmjs/core/internal';
import { addon } from './addon.js';

/**
 * Refuses allocations that would take the bytes handed out (each rounded up to 256) past
 * `allocationLimit`: `OutOfMemoryError` "Exceeded memory limit", counters unchanged.
 */
export class LimitingResourceAdaptor extends UpstreamResourceAdaptor {
  constructor(upstream: DeviceMemoryResource, allocationLimit: number | string) {
    super(addon.create(resourceHandle(upstream, 'upstream'), validateSizeOption(allocationLimit, 'allocationLimit')));
  }

  /** Bytes handed out now, each allocation rounded up to 256. */
  getAllocatedBytes(): number {
    return addon.allocatedBytes(resourceHandle(this, 'this'));
  }

  /** The most bytes this adaptor may hand out. */
  getAllocationLimit(): number {
    return addon.allocationLimit(resourceHandle(this, 'this'));
  }
}

registerResourceClass('LimitingResourceAdaptor', LimitingResourceAdaptor);
