// PrefetchResourceAdaptor through the shared conformance suite (RMM's mr_ref_test).
import { PrefetchResourceAdaptor } from '@rmmjs/prefetch';
import { describeConformance, upstreams } from '@rmmjs/test-helpers';

describeConformance('PrefetchResourceAdaptor', (upstream) => new PrefetchResourceAdaptor(upstream), {
  upstreams: upstreams('the current device resource', 'CountingResourceAdaptor', 'ManagedMemoryResource'),
});
