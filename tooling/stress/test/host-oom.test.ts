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

const MiB = 1 << 20;
// `up` is the byte-counting upstream, `dir` a folder of the child's, `k` the step; `counters` what
// must be 0 once everything is freed.
const resources: { name: string; make: string; counters?: string }[] = [
  { name: 'PoolMemoryResource', make: `new pool.PoolMemoryResource(up, { initialPoolSize: ${MiB} })` },
  { name: 'ArenaMemoryResource', make: `new arena.ArenaMemoryResource(up, { arenaSize: ${64 * MiB} })` },
  {
    name: 'BinningMemoryResource',
    make: `new binning.BinningMemoryResource(up, { minSizeExponent: 8, maxSizeExponent: 20 })`,
  },
  {
    name: 'FixedSizeMemoryResource',
    make: `new fixedSize.FixedSizeMemoryResource(up, { blockSize: ${4 * MiB}, blocksToPreallocate: 4 })`,
  },
  // Without stacks: capturing one runs V8, whose own operator new may not fail (V8 aborts).
  {
    name: 'TrackingResourceAdaptor',
    make: `new tracking.TrackingResourceAdaptor(up, { captureStacks: false })`,
    counters: `[mr.getAllocatedBytes(), mr.getOutstandingAllocationCount()]`,
  },
  {
    name: 'LoggingResourceAdaptor',
    make: `new logging.LoggingResourceAdaptor(up, { logFileName: path.join(dir, 'log' + k + '.csv') })`,
  },
  {
    name: 'StatisticsResourceAdaptor',
    make: `new statistics.StatisticsResourceAdaptor(up)`,
    counters: `[mr.allocationCounts.currentBytes, mr.allocationCounts.currentCount]`,
  },
  {
    name: 'LimitingResourceAdaptor',
    make: `new limiting.LimitingResourceAdaptor(up, ${1024 * MiB})`,
    counters: `[mr.getAllocatedBytes()]`,
  },
];

// An ASan build preloads its runtime, whose operator new would come first: nothing would fail.
const underAsan = /libasan/.test(process.env.LD_PRELOAD ?? '');

describe.skipIf(onGpu() || underAsan)('host memory running out in every allocation of a call', () => {
  it.each(resources)(
    '$name: each call succeeds or is OutOfMemory, and nothing is lost or handed out twice',
    ({ make, counters = '[]' }) => {
      const run = runInProcess(
        `import * as fs from 'node:fs';
         import * as os from 'node:os';
         import * as path from 'node:path';
         const up = new limiting.LimitingResourceAdaptor(core.getCurrentDeviceResource(), 2 ** 40);
         const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rmmjs-host-oom-'));
         const totals = { points: 0, failedAllocations: 0, failedFrees: 0, refreesFailed: 0, overlaps: 0,
                          unexpected: [], counters: [], upstreamAfter: [] };
         for (let k = 0; k < 1000; k++) {
           const mr = ${make};
           const step = testAddon.hostOomStep(mr, k);
           const left = ${counters};
           if (left.some((n) => n !== 0)) totals.counters.push(\`k=\${k}: \${left}\`);
           mr[Symbol.dispose]();
           if (up.getAllocatedBytes() !== 0) totals.upstreamAfter.push(\`k=\${k}: \${up.getAllocatedBytes()}\`);
           if (!step.fired) break;
           totals.points++;
           for (const key of ['failedAllocations', 'failedFrees', 'refreesFailed', 'overlaps']) totals[key] += step[key];
           totals.unexpected.push(...step.unexpected.map((u) => \`k=\${k}: \${u}\`));
         }
         fs.rmSync(dir, { recursive: true, force: true });
         console.log(JSON.stringify(totals));`,
        {
          modules: {
            testAddon: '@rmmjs/test-addon',
            pool: '@rmmjs/pool',
            arena: '@rmmjs/arena',
            binning: '@rmmjs/binning',
            fixedSize: '@rmmjs/fixed-size',
            tracking: '@rmmjs/tracking',
            statistics: '@rmmjs/statistics',
            limiting: '@rmmjs/limiting',
            logging: '@rmmjs/logging',
          },
          env: { LD_PRELOAD: failNewLibrary },
          timeout: 60_000,
        },
      );
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
    },
  );
});
