// Host memory running out inside the resources: a child process preloads @rmmjs/test-addon's
// librmmjs_fail_new.so, whose operator new fails when told to. For k = 0, 1, 2, ... a fresh
// resource (over a byte-counting upstream) runs one fixed sequence of allocations and frees
// through the C ABI while the k-th operator new of the thread fails, until the sequence makes
// fewer than k + 1. Every call must succeed or fail with out of memory, a free that failed must
// work when done again, live blocks never overlap, the resource's own counters end at 0, and once
// it is disposed its upstream holds nothing.
import { failNewLibrary } from '@rmmjs/test-addon';
import { onGpu, runInProcess } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

// The resources the sweep (children/host-oom-sweep.js) makes, by name.
const resources = [
  'PoolMemoryResource',
  'ArenaMemoryResource',
  'BinningMemoryResource',
  'FixedSizeMemoryResource',
  'TrackingResourceAdaptor',
  'LoggingResourceAdaptor',
  'StatisticsResourceAdaptor',
  'LimitingResourceAdaptor',
];

// An ASan build preloads its runtime, whose operator new would come first: nothing would fail.
const underAsan = /libasan/.test(process.env.LD_PRELOAD ?? '');

describe.skipIf(onGpu() || underAsan)('host memory running out in every allocation of a call', () => {
  it.each(resources)('%s: each call succeeds or is OutOfMemory, and nothing is lost or handed out twice', (name) => {
    const run = runInProcess(new URL('./children/host-oom-sweep.js', import.meta.url), {
      args: [name],
      env: { LD_PRELOAD: failNewLibrary },
      timeout: 60_000,
    });
    expect({ status: run.status, signal: run.signal }, run.stderr.slice(-3000)).toEqual({ status: 0, signal: null });
    const totals = JSON.parse(run.stdout.split('\n').pop() ?? '');
    expect({ ...totals, points: undefined, failedAllocations: undefined, failedFrees: undefined }).toEqual({
      refreesFailed: 0,
      overlaps: 0,
      unexpected: [],
      counters: [],
      upstreamAfter: [],
    });
    // The sweep reached allocations of the resource, and some of its calls failed for it.
    expect(totals.points).toBeGreaterThan(0);
    expect(totals.failedAllocations + totals.failedFrees).toBeGreaterThan(0);
  });
});
