import { loadPackageAddon } from '@rmmjs/core/internal';

/** A native handle of host or managed memory (src/native/addon.cc). */
export type HostMemoryHandle = object & { readonly __brand: 'HostMemoryHandle' };

/** What the addon exports. Pointers are bigints (0n for none). */
export interface EmmPluginAddon {
  hostAlloc(device: number, size: number, flags: number): [HostMemoryHandle, ArrayBuffer, bigint, bigint];
  hostRegister(
    device: number,
    view: Uint8Array,
    offset: number,
    size: number,
    flags: number,
  ): [HostMemoryHandle, bigint, bigint];
  managedAlloc(device: number, size: number, attachGlobal: boolean): [HostMemoryHandle, bigint];
  detach(handle: HostMemoryHandle, arrayBuffer: ArrayBuffer): void;
  release(handle: HostMemoryHandle): void;
  address(view: Uint8Array): bigint;
}

export const addon = loadPackageAddon<EmmPluginAddon>(import.meta.url, '..', '@rmmjs/emm-plugin');

/** CU_MEMHOSTALLOC_* and CU_MEMHOSTREGISTER_* flags. */
export const HostAllocFlags = { portable: 0x1, deviceMap: 0x2, writeCombined: 0x4 } as const;
export const HostRegisterFlags = { deviceMap: 0x2 } as const;
