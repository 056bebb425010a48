import { loadPackageAddon, type ResourceHandle } from '@rmmjs/core/internal';

export interface TrackingAddon {
  setStackCapturer(capture: () => string): void;
  create(upstream: ResourceHandle, captureStacks: boolean): ResourceHandle;
  allocatedBytes(mr: ResourceHandle): number;
  outstandingCount(mr: ResourceHandle): number;
  outstandingAllocationsStr(mr: ResourceHandle): string;
  logOutstandingAllocations(mr: ResourceHandle): void;
}

export const addon = loadPackageAddon<TrackingAddon>(import.meta.url, '..', '@rmmjs/tracking');
