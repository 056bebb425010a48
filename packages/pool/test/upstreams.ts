// The upstream resources the pool is tested over, and LimitingResourceAdaptor (loaded from the
// sibling package's build, which this package does not depend on at run time).
import {
  cuda,
  CudaAsyncMemoryResource,
  CudaMemoryResource,
  type DeviceMemoryResource,
  ManagedMemoryResource,
  PinnedHostMemoryResource,
  SystemMemoryResource,
} from '@rmmjs/core';
import { withCuda } from '@rmmjs/test-helpers';

const PAGEABLE_MEMORY_ACCESS = 88;

export interface UpstreamCase {
  name: string;
  make: () => DeviceMemoryResource;
  available: () => boolean;
}

const upstreams: UpstreamCase[] = [
  { name: 'CudaMemoryResource', make: () => new CudaMemoryResource(), available: withCuda },
  { name: 'ManagedMemoryResource', make: () => new ManagedMemoryResource(), available: withCuda },
  { name: 'PinnedHostMemoryResource', make: () => new PinnedHostMemoryResource(), available: withCuda },
  { name: 'CudaAsyncMemoryResource', make: () => new CudaAsyncMemoryResource(), available: withCuda },
  {
    name: 'SystemMemoryResource',
    make: () => new SystemMemoryResource(),
    available: () => !withCuda() || cuda.deviceAttribute(PAGEABLE_MEMORY_ACCESS) === 1,
  },
];

export const upstreamCases = upstreams.filter((c) => c.available());

export interface LimitingAdaptor extends DeviceMemoryResource {
  getAllocatedBytes(): number;
  getAllocationLimit(): number;
}
export type LimitingClass = new (upstream: DeviceMemoryResource, allocationLimit: number | string) => LimitingAdaptor;

/** @rmmjs/limiting's LimitingResourceAdaptor, or undefined when that package is not built. */
export async function loadLimiting(): Promise<LimitingClass | undefined> {
  try {
    const module = await import(new URL('../../limiting/dist/index.js', import.meta.url).href);
    return module.LimitingResourceAdaptor as LimitingClass;
  } catch (error) {
    console.warn(`@rmmjs/limiting is not built (${(error as Error).message}): its tests are skipped`);
    return undefined;
  }
}
