import { type DeviceMemoryResource, UpstreamResourceAdaptor } from '@rmmjs/core';
import {
  loadAdaptorAddon,
  registerResourceClass,
  resourceHandle,
  validateSizeOption,
  type ResourceHandle,
} from '@rmmjs/core/internal';

interface LimitingAddon {
  create(upstream: ResourceHandle, allocationLimit: number): ResourceHandle;
  allocatedBytes(mr: ResourceHandle): number;
  allocationLimit(mr: ResourceHandle): number;
}

const addon = loadAdaptorAddon<LimitingAddon>(
  import.meta.url,
  '../build/Release/rmmjs_limiting.node',
  '@rmmjs/limiting',
);

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
