// The upstream resources the adaptor is tested over (entries of the shared table), where this
// backend can make them.
import { upstreams } from '@rmmjs/test-helpers';

export const availableUpstreams = () =>
  upstreams('SystemMemoryResource', 'CudaMemoryResource', 'ManagedMemoryResource', 'CudaAsyncMemoryResource');
