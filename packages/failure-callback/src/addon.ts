import { loadPackageAddon, type ResourceHandle } from '@rmmjs/core/internal';

export type NativeOnFailure = (nbytes: number, upstreamThrew: boolean) => boolean;

export interface FailureCallbackAddon {
  create(upstream: ResourceHandle, onFailure: NativeOnFailure): ResourceHandle;
}

export const addon = loadPackageAddon<FailureCallbackAddon>(import.meta.url, '..', '@rmmjs/failure-callback');
