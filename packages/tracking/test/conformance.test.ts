// TrackingResourceAdaptor through the shared conformance suite (RMM's mr_ref_test).
import { TrackingResourceAdaptor } from '@rmmjs/tracking';
import { describeConformance, upstreams } from '@rmmjs/test-helpers';

describeConformance('TrackingResourceAdaptor', (upstream) => new TrackingResourceAdaptor(upstream), {
  upstreams: upstreams('the current device resource', 'CountingResourceAdaptor', 'ManagedMemoryResource'),
  counts: (mr) => mr.getAllocatedBytes(),
});
