// StatisticsResourceAdaptor through the shared conformance suite (RMM's mr_ref_test).
import { StatisticsResourceAdaptor } from '@rmmjs/statistics';
import { describeConformance, upstreams } from '@rmmjs/test-helpers';

describeConformance('StatisticsResourceAdaptor', (upstream) => new StatisticsResourceAdaptor(upstream), {
  upstreams: upstreams('the current device resource', 'CountingResourceAdaptor', 'ManagedMemoryResource'),
  counts: (mr) => mr.allocationCounts.currentBytes,
});
