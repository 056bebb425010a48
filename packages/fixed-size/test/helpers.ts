// What this package's suites run over (entries of the shared table).
import { upstreams } from '@rmmjs/test-helpers';

export const availableUpstreams = () =>
  upstreams(
    'the current device resource',
    'CudaMemoryResource',
    'ManagedMemoryResource',
    'CudaAsyncMemoryResource',
    'CountingResourceAdaptor',
  );
