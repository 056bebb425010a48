// The upstream resources the adaptor is tested over (entries of the shared table, whose `managed`
// says whether a prefetch moves their memory), where this backend can make them.
import { upstreams } from '@rmmjs/test-helpers';

export const availableUpstreams = () =>
  upstreams('ManagedMemoryResource', 'CudaMemoryResource', 'CudaAsyncMemoryResource', 'SystemMemoryResource');
