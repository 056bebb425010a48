// The upstream resources the adaptor is tested over, and where each one can run.
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
}

export const upstreamCases: UpstreamCase[] = [
  {
    name: 'SystemMemoryResource',
    make: () => new SystemMemoryResource(),
    available: () => !withCuda() || cuda.deviceAttribute(PAGEABLE_MEMORY_ACCESS) === 1,
  },
  { name: 'CudaMemoryResource', make: () => new CudaMemoryResource(), available: withCuda },
  { name: 'ManagedMemoryResource', make: () => new ManagedMemoryResource(), available: withCuda },
  { name: 'CudaAsyncMemoryResource', make: () => new CudaAsyncMemoryResource(), available: withCuda },
];

export const availableUpstreams = () => upstreamCases.filter((c) => c.available());
