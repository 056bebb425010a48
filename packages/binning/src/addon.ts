import { loadPackageAddon, type ResourceHandle } from '@rmmjs/core/internal';

export interface BinningAddon {
  create(upstream: ResourceHandle): ResourceHandle;
  addBin(mr: ResourceHandle, allocationSize: number, bin: ResourceHandle): boolean;
  hasBin(mr: ResourceHandle, allocationSize: number): boolean;
  bins(mr: ResourceHandle): ResourceHandle[];
}

export const addon = loadPackageAddon<BinningAddon>(import.meta.url, '..', '@rmmjs/binning');
