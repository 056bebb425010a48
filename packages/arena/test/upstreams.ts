// The upstream resources the suites run over (as RMM's Python test: Cuda, Managed, ...).
import {
  CudaMemoryResource,
  type DeviceMemoryResource,
  ManagedMemoryResource,
  getCurrentDeviceResource,
} from '@rmmjs/core';
import { withCuda } from '@rmmjs/test-helpers';
import { afterEach } from 'vitest';

export const KiB = 1024;
export const MiB = 1024 * KiB;

export interface UpstreamCase {
  name: string;
  make: () => DeviceMemoryResource;
}

export const upstreamCases: UpstreamCase[] = [
  { name: 'the current device resource', make: () => getCurrentDeviceResource() },
  ...(withCuda()
    ? [
        { name: 'CudaMemoryResource', make: () => new CudaMemoryResource() },
        { name: 'ManagedMemoryResource', make: () => new ManagedMemoryResource() },
      ]
    : []),
];

/** Byte offset of ptr from base. */
export const offset = (ptr: bigint, base: bigint): number => Number(ptr - base);

/**
 * Returns `keep(resource)`: resources kept are disposed after each test (never the current
 * device resource), so that no test leaves memory taken on the 256 MiB fake devices.
 */
export function disposeAfterEach(): <T extends Disposable>(item: T) => T {
  const items: Disposable[] = [];
  afterEach(() => {
    for (const item of items.splice(0).reverse()) item[Symbol.dispose]();
  });
  return (item) => {
    if (item !== (getCurrentDeviceResource() as unknown)) items.push(item);
    return item;
  };
}
