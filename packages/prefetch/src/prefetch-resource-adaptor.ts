import { type DeviceMemoryResource, UpstreamResourceAdaptor } from '@rmmjs/core';
import { registerResourceClass, resourceHandle } from '@rmmjs/core/internal';
import { addon } from './addon.js';

/**
 * Prefetches every allocation to the resource's device on the allocation's stream, so managed
 * memory is resident before it is first used. A no-op for memory that is not managed, on
 * devices without concurrent managed access, and in host mode. A failing prefetch returns the
 * allocation to the upstream and throws `CudaError`.
 */
export class PrefetchResourceAdaptor extends UpstreamResourceAdaptor {
  constructor(upstream: DeviceMemoryResource) {
    super(addon.create(resourceHandle(upstream, 'upstream')));
  }
}

registerResourceClass('PrefetchResourceAdaptor', PrefetchResourceAdaptor);
