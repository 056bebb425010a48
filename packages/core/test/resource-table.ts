// The resources of @rmmjs/core and where each one can run, for describe.each tables.
import {
  cuda,
  CudaAsyncMemoryResource,
  CudaAsyncViewMemoryResource,
  CudaMemoryResource,
  type DeviceMemoryResource,
  ManagedMemoryResource,
  PinnedHostMemoryResource,
  SystemMemoryResource,
} from '@rmmjs/core';
import { withCuda } from '@rmmjs/test-helpers';

const PAGEABLE_MEMORY_ACCESS = 88;

export interface ResourceCase {
  name: string;
  make: () => DeviceMemoryResource;
  /** Whether this backend can construct it. */
  available: () => boolean;
  /** Memory the host can read directly. */
  hostAccessible: boolean;
}

export const pageableMemoryAccess = () =>
  !withCuda() || cuda.deviceAttribute(PAGEABLE_MEMORY_ACCESS) === 1;

export const resourceCases: ResourceCase[] = [
  { name: 'CudaMemoryResource', make: () => new CudaMemoryResource(), available: withCuda, hostAccessible: false },
  { name: 'ManagedMemoryResource', make: () => new ManagedMemoryResource(), available: withCuda, hostAccessible: true },
  { name: 'PinnedHostMemoryResource', make: () => new PinnedHostMemoryResource(), available: withCuda, hostAccessible: true },
  {
    name: 'CudaAsyncMemoryResource',
    make: () => new CudaAsyncMemoryResource(),
    available: withCuda,
    hostAccessible: false,
  },
  {
    name: 'CudaAsyncViewMemoryResource',
    make: () => new CudaAsyncViewMemoryResource(cuda.getDefaultMemPool()),
    available: withCuda,
    hostAccessible: false,
  },
  { name: 'SystemMemoryResource', make: () => new SystemMemoryResource(), available: pageableMemoryAccess, hostAccessible: true },
];

export const availableCases = () => resourceCases.filter((c) => c.available());
