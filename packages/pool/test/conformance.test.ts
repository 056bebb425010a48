// PoolMemoryResource through the shared conformance suite (RMM's mr_ref_test).
import { PoolMemoryResource } from '@rmmjs/pool';
import { MiB, describeConformance, upstreams } from '@rmmjs/test-helpers';

describeConformance(
  'PoolMemoryResource',
  (upstream) => new PoolMemoryResource(upstream, { initialPoolSize: 16 * MiB }),
  {
    upstreams: upstreams('the current device resource', 'CountingResourceAdaptor', 'ManagedMemoryResource'),
  },
);
