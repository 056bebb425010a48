// The sweep of host-oom.test.ts for the resource its first argument names (librmmjs_fail_new.so
// preloaded): for k = 0, 1, 2, ... a fresh one over a byte-counting upstream runs test-addon's
// hostOomStep (its k-th operator new fails) and is disposed of, until that new is not reached.
// Prints, as JSON, the totals of the steps and what was left: the resource's counters that were
// not 0 once everything was freed, and the upstream's bytes after its disposal.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCurrentDeviceResource } from '@rmmjs/core';
import { ArenaMemoryResource } from '@rmmjs/arena';
import { BinningMemoryResource } from '@rmmjs/binning';
import { FixedSizeMemoryResource } from '@rmmjs/fixed-size';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { LoggingResourceAdaptor } from '@rmmjs/logging';
import { PoolMemoryResource } from '@rmmjs/pool';
import { StatisticsResourceAdaptor } from '@rmmjs/statistics';
import { TrackingResourceAdaptor } from '@rmmjs/tracking';
import { hostOomStep } from '@rmmjs/test-addon';
import { MiB } from '@rmmjs/test-helpers/bytes';

/** @typedef {import('@rmmjs/core').DeviceMemoryResource} DeviceMemoryResource */
/**
 * Each resource: how to make it of step k over `up` (in the child's folder `dir`), and the
 * counters that must be 0 once everything is freed.
 * @type {Record<string, { make: (up: DeviceMemoryResource, dir: string, k: number) => DeviceMemoryResource, counters?: (mr: any) => number[] }>}
 */
const resources = {
  PoolMemoryResource: { make: (up) => new PoolMemoryResource(up, { initialPoolSize: MiB }) },
  ArenaMemoryResource: { make: (up) => new ArenaMemoryResource(up, { arenaSize: 64 * MiB }) },
  BinningMemoryResource: {
    make: (up) => new BinningMemoryResource(up, { minSizeExponent: 8, maxSizeExponent: 20 }),
  },
  FixedSizeMemoryResource: {
    make: (up) => new FixedSizeMemoryResource(up, { blockSize: 4 * MiB, blocksToPreallocate: 4 }),
  },
  // Without stacks: capturing one runs V8, whose own operator new may not fail (V8 aborts).
  TrackingResourceAdaptor: {
    make: (up) => new TrackingResourceAdaptor(up, { captureStacks: false }),
    counters: (mr) => [mr.getAllocatedBytes(), mr.getOutstandingAllocationCount()],
  },
  LoggingResourceAdaptor: {
    make: (up, dir, k) => new LoggingResourceAdaptor(up, { logFileName: join(dir, `log${k}.csv`) }),
  },
  StatisticsResourceAdaptor: {
    make: (up) => new StatisticsResourceAdaptor(up),
    counters: (mr) => [mr.allocationCounts.currentBytes, mr.allocationCounts.currentCount],
  },
  LimitingResourceAdaptor: {
    make: (up) => new LimitingResourceAdaptor(up, 1024 * MiB),
    counters: (mr) => [mr.getAllocatedBytes()],
  },
};

const { make, counters = () => [] } = /** @type {(typeof resources)[string]} */ (resources[process.argv[2] ?? '']);
const up = new LimitingResourceAdaptor(getCurrentDeviceResource(), 2 ** 40);
const dir = mkdtempSync(join(tmpdir(), 'rmmjs-host-oom-'));
const totals = {
  points: 0,
  failedAllocations: 0,
  failedFrees: 0,
  refreesFailed: 0,
  overlaps: 0,
  /** @type {string[]} */ unexpected: [],
  /** @type {string[]} */ counters: [],
  /** @type {string[]} */ upstreamAfter: [],
};
for (let k = 0; k < 1000; k++) {
  const mr = make(up, dir, k);
  const step = hostOomStep(mr, k);
  const left = counters(mr);
  if (left.some((n) => n !== 0)) totals.counters.push(`k=${k}: ${left}`);
  mr[Symbol.dispose]();
  if (up.getAllocatedBytes() !== 0) totals.upstreamAfter.push(`k=${k}: ${up.getAllocatedBytes()}`);
  if (!step.fired) break;
  totals.points++;
  for (const key of /** @type {const} */ (['failedAllocations', 'failedFrees', 'refreesFailed', 'overlaps'])) {
    totals[key] += step[key];
  }
  totals.unexpected.push(...step.unexpected.map((u) => `k=${k}: ${u}`));
}
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify(totals));
