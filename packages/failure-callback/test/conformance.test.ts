// FailureCallbackResourceAdaptor through the shared conformance suite (RMM's mr_ref_test), with a
// callback that never retries.
import { FailureCallbackResourceAdaptor } from '@rmmjs/failure-callback';
import { describeConformance, upstreams } from '@rmmjs/test-helpers';

describeConformance(
  'FailureCallbackResourceAdaptor',
  (upstream) => new FailureCallbackResourceAdaptor(upstream, () => false),
  {
    upstreams: upstreams('the current device resource', 'CountingResourceAdaptor'),
  },
);
