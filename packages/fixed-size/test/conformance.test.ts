// FixedSizeMemoryResource through the shared conformance suite (RMM's mr_ref_test): its maximum
// allocation is its block size.
import { FixedSizeMemoryResource } from '@rmmjs/fixed-size';
import { MiB, describeConformance, upstreams } from '@rmmjs/test-helpers';

const blockSize = MiB;

describeConformance(
  'FixedSizeMemoryResource',
  (upstream) => new FixedSizeMemoryResource(upstream, { blockSize, blocksToPreallocate: 8 }),
  {
    upstreams: upstreams('the current device resource', 'CountingResourceAdaptor', 'CudaAsyncMemoryResource'),
    maxAllocation: blockSize,
  },
);
