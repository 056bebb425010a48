import { loadAdaptorAddon, type ResourceHandle } from '@rmmjs/core/internal';

export interface PrefetchAddon {
  create(upstream: ResourceHandle): ResourceHandle;
}

export const addon = loadAdaptorAddon<PrefetchAddon>(import.meta.url, '..', '@rmmjs/prefetch');
