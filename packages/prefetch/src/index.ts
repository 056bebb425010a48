import { type DeviceMemoryResource, UpstreamResourceAdaptor } from '@rmmjs/core';
import { loadAdaptorAddon, registerResourceClass, resourceHandle, type ResourceHandle } from '@rmmjs/core/internal';

interface PrefetchAddon {
  create(upstream: ResourceHandle): ResourceHandle;
}

const addon = loadAdaptorAddon<PrefetchAddon>(
  import.meta.url,
  '../build/Release/rmmjs_prefetch.node',
  '@rmmjs/prefetch',
);

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
