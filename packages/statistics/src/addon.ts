import { loadPackageAddon, type ResourceHandle } from '@rmmjs/core/internal';

/** [currentBytes, currentCount, peakBytes, peakCount, totalBytes, totalCount] */
export type Counters = [number, number, number, number, number, number];

export interface StatisticsAddon {
  create(upstream: ResourceHandle): ResourceHandle;
  counters(mr: ResourceHandle): Counters;
  push(mr: ResourceHandle): Counters;
  pop(mr: ResourceHandle): Counters;
  countAllocation(mr: ResourceHandle, nbytes: number): void;
  countFree(mr: ResourceHandle, nbytes: number): void;
}

export const addon = loadPackageAddon<StatisticsAddon>(import.meta.url, '..', '@rmmjs/statistics');
