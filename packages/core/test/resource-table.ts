// The resources of @rmmjs/core that this package's suites run over: entries of the shared table.
import { resourceTable } from '@rmmjs/test-helpers';

export { pageableMemoryAccess } from '@rmmjs/test-helpers';

const names = [
  'CudaMemoryResource',
  'ManagedMemoryResource',
  'PinnedHostMemoryResource',
  'CudaAsyncMemoryResource',
  'CudaAsyncViewMemoryResource',
  'SystemMemoryResource',
];
export const resourceCases = resourceTable.filter((c) => names.includes(c.name));
export const availableCases = () => resourceCases.filter((c) => c.available());
