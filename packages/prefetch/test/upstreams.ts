// The upstream resources the adaptor is tested over, where each one can run, and whether its
// memory is managed (the only memory a prefetch moves).
import {
  cuda,
  CudaAsyncMemoryResource,
  CudaMemoryResource,
  type DeviceMemoryResource,
  ManagedMemoryResource,
  SystemMemoryResource,
} from '@rmmjs/core';
import { withCuda } from '@rmmjs/test-helpers';

const PAGEABLE_MEMORY_ACCESS = 88;

export interface UpstreamCase {
  name: string;
  make: () => DeviceMemoryResource;
  available: () => boolean;
  managed: boolean;
}

export const upstreamCases: UpstreamCase[] = [
  { name: 'ManagedMemoryResource', make: () => new ManagedMemoryResource(), available: withCuda, managed: true },
  { name: 'CudaMemoryResource', make: () => new CudaMemoryResource(), available: withCuda, managed: false },
  { name: 'CudaAsyncMemoryResource', make: () => new CudaAsyncMemoryResource(), available: withCuda, managed: false },
  {
    name: 'SystemMemoryResource',
    make: () => new SystemMemoryResource(),
    available: () => !withCuda() || cuda.deviceAttribute(PAGEABLE_MEMORY_ACCESS) === 1,
    managed: false,
  },
];

export const availableUpstreams = () => upstreamCases.filter((c) => c.available());
