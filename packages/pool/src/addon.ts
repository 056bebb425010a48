import { loadPackageAddon, type ResourceHandle } from '@rmmjs/core/internal';

export interface PoolAddon {
  create(
    upstream: ResourceHandle,
    initialPoolSize: number | undefined,
    maximumPoolSize: number | undefined,
  ): ResourceHandle;
  poolSize(mr: ResourceHandle): number;
}

export const addon = loadPackageAddon<PoolAddon>(import.meta.url, '..', '@rmmjs/pool');
