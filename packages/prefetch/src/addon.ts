import { loadPackageAddon, type ResourceHandle } from '@rmmjs/core/internal';

export interface PrefetchAddon {
  create(upstream: ResourceHandle): ResourceHandle;
}

export const addon = loadPackageAddon<PrefetchAddon>(import.meta.url, '..', '@rmmjs/prefetch');
