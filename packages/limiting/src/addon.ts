import { loadPackageAddon, type ResourceHandle } from '@rmmjs/core/internal';

export interface LimitingAddon {
  create(upstream: ResourceHandle, allocationLimit: number): ResourceHandle;
  allocatedBytes(mr: ResourceHandle): number;
  allocationLimit(mr: ResourceHandle): number;
}

export const addon = loadPackageAddon<LimitingAddon>(import.meta.url, '..', '@rmmjs/limiting');
