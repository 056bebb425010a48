import { loadPackageAddon, type ResourceHandle } from '@rmmjs/core/internal';

export interface FixedSizeAddon {
  create(upstream: ResourceHandle, blockSize: number, blocksToPreallocate: number): ResourceHandle;
  blockSize(mr: ResourceHandle): number;
}

export const addon = loadPackageAddon<FixedSizeAddon>(import.meta.url, '..', '@rmmjs/fixed-size');
