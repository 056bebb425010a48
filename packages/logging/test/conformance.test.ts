// LoggingResourceAdaptor through the shared conformance suite (RMM's mr_ref_test); every
// instance logs to its own file in a temporary directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoggingResourceAdaptor } from '@rmmjs/logging';
import { describeConformance, upstreams } from '@rmmjs/test-helpers';
import { afterAll } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'rmmjs-logging-conformance-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

describeConformance(
  'LoggingResourceAdaptor',
  (upstream) => new LoggingResourceAdaptor(upstream, { logFileName: join(dir, `log-${files++}.csv`) }),
  { upstreams: upstreams('the current device resource', 'CountingResourceAdaptor', 'ManagedMemoryResource') },
);
