// LimitingResourceAdaptor through the shared conformance suite (RMM's mr_ref_test).
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { MiB, describeConformance, upstreams } from '@rmmjs/test-helpers';

describeConformance('LimitingResourceAdaptor', (upstream) => new LimitingResourceAdaptor(upstream, 128 * MiB), {
  upstreams: upstreams('the current device resource', 'CudaAsyncMemoryResource'),
  counts: (mr) => mr.getAllocatedBytes(),
});
