// BinningMemoryResource through the shared conformance suite (RMM's mr_ref_test), with bins of
// 1 KiB to 128 KiB; larger requests go to the upstream.
import { BinningMemoryResource } from '@rmmjs/binning';
import { describeConformance, upstreams } from '@rmmjs/test-helpers';

describeConformance(
  'BinningMemoryResource',
  (upstream) => new BinningMemoryResource(upstream, { minSizeExponent: 10, maxSizeExponent: 17 }),
  {
    upstreams: upstreams('the current device resource', 'CountingResourceAdaptor'),
  },
);
