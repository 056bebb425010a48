// The upstream resources the pool is tested over: entries of the shared table.
import { upstreams } from '@rmmjs/test-helpers';

export const upstreamCases = upstreams(
  'CudaMemoryResource',
  'ManagedMemoryResource',
  'PinnedHostMemoryResource',
  'CudaAsyncMemoryResource',
  'SystemMemoryResource',
);
