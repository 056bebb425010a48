import { loadPackageAddon, type ResourceHandle } from '@rmmjs/core/internal';

export type NativeAllocate = (nbytes: number, streamHandle: bigint) => bigint;
export type NativeDeallocate = (ptr: bigint, nbytes: number, streamHandle: bigint) => void;

export interface CallbackAddon {
  create(allocate: NativeAllocate, deallocate: NativeDeallocate): ResourceHandle;
}

export const addon = loadPackageAddon<CallbackAddon>(import.meta.url, '..', '@rmmjs/callback');
