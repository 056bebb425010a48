// ArenaMemoryResource through the shared conformance suite (RMM's mr_ref_test).
import { ArenaMemoryResource } from '@rmmjs/arena';
import { MiB, describeConformance, upstreams } from '@rmmjs/test-helpers';

describeConformance('ArenaMemoryResource', (upstream) => new ArenaMemoryResource(upstream, { arenaSize: 64 * MiB }), {
  upstreams: upstreams('the current device resource', 'CountingResourceAdaptor', 'ManagedMemoryResource'),
});
