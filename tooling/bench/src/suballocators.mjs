// The sub-allocators and adaptors: allocate+free pairs and the random workload
// from JS and through the C ABI, scaling with live allocations and with threads, and what each
// adaptor adds over a pool.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as core from '@rmmjs/core';
import { ArenaMemoryResource } from '@rmmjs/arena';
import { BinningMemoryResource } from '@rmmjs/binning';
import { FailureCallbackResourceAdaptor } from '@rmmjs/failure-callback';
import { FixedSizeMemoryResource } from '@rmmjs/fixed-size';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { LoggingResourceAdaptor } from '@rmmjs/logging';
import { PoolMemoryResource } from '@rmmjs/pool';
import { PrefetchResourceAdaptor } from '@rmmjs/prefetch';
import { StatisticsResourceAdaptor } from '@rmmjs/statistics';
import { TrackingResourceAdaptor } from '@rmmjs/tracking';
import { abiPairNs, abiRandomNs, abiThreadsOpsPerSecond } from '@rmmjs/test-addon';
import { benchScale } from './scale.mjs';
import { judge } from './targets.mjs';
import { randomWorkload, runRandomWorkload, threadOpsPerSecond } from '@rmmjs/cli';
import { alternatingMedians, leastAndMedian, median, pairNs } from './timing.mjs';

const MiB = 1 << 20;
const GiB = 1 << 30;

/** The pairs per measurement and the random workload's steps here (the peers run the same). */
// The adaptors whose cost over a pool pair the bench measures (target: each adds <= 30 ns).
const adaptorsOverAPool = {
  LimitingResourceAdaptor: (upstream) => new LimitingResourceAdaptor(upstream, 64 * GiB),
  TrackingResourceAdaptor: (upstream) => new TrackingResourceAdaptor(upstream),
  PrefetchResourceAdaptor: (upstream) => new PrefetchResourceAdaptor(upstream),
  FailureCallbackResourceAdaptor: (upstream) => new FailureCallbackResourceAdaptor(upstream, () => false),
  StatisticsResourceAdaptor: (upstream) => new StatisticsResourceAdaptor(upstream),
};
export const ADAPTORS = Object.keys(adaptorsOverAPool);

export function suballocatorCounts(quick) {
  return { pairs: quick ? 20_000 : 200_000, steps: quick ? 10_000 : 100_000 };
}

/** The timed runs per figure that bench_peers.py takes the least of (its --repeats). */
export function peerRepeatsFor(quick) {
  return quick ? 3 : 5;
}

export async function benchSuballocators({ record, quick, gpu }) {
  const base = gpu ? new core.CudaMemoryResource() : new core.SystemMemoryResource();
  const { pairs, steps } = suballocatorCounts(quick);
  const peerRepeats = peerRepeatsFor(quick);
  const workload = randomWorkload({ steps });
  const pool = () => new PoolMemoryResource(base, { initialPoolSize: 2 * GiB });
  const suballocators = [
    ['PoolMemoryResource', pool, true],
    ['ArenaMemoryResource', () => new ArenaMemoryResource(base, { arenaSize: 8 * GiB }), true],
    [
      'FixedSizeMemoryResource',
      () => new FixedSizeMemoryResource(base, { blockSize: MiB, blocksToPreallocate: 128 }),
      false,
    ],
    [
      'BinningMemoryResource',
      () => new BinningMemoryResource(pool(), { minSizeExponent: 8, maxSizeExponent: 20 }),
      true,
    ],
  ];
  for (const [name, make, random] of suballocators) {
    const mr = make();
    // The two rows compared with CuPy's MemoryPool: the least of as many runs as peers.mjs
    // gives bench_peers.py (its --repeats), where each peer is measured at its best.
    const pair = leastAndMedian(() => pairNs(mr, MiB, pairs), peerRepeats);
    record(name, 'pair 1 MiB from JS', pair.least, 'ns', `least of ${peerRepeats}; median ${pair.median.toFixed(1)}`);
    record(
      name,
      'pair 1 MiB through the C ABI (C++)',
      median(() => abiPairNs(mr, MiB, pairs)),
      'ns',
    );
    if (random) {
      const randomNs = leastAndMedian(() => runRandomWorkload(mr, workload), peerRepeats);
      record(
        name,
        `random workload (${steps} steps) from JS`,
        randomNs.least,
        'ns/op',
        `least of ${peerRepeats}; median ${randomNs.median.toFixed(1)}`,
      );
      record(
        name,
        'random workload through the C ABI (C++)',
        median(() => abiRandomNs(mr, workload.sizes, workload.frees), 3),
        'ns/op',
      );
    }
    mr[Symbol.dispose]();
  }

  benchScale({ record, quick, gpu, base });

  // Threads sharing one resource: worker threads from JS, and native threads through the C ABI.
  // Targets: 2, 4 and 8 threads each at least the 1-thread figure, 8 at least twice it.
  const seconds = quick ? 0.3 : 1;
  for (const [name, make] of [suballocators[0], suballocators[1]]) {
    const mr = make();
    const kinds = [
      ['worker threads', (threads) => threadOpsPerSecond(mr, threads, { seconds })],
      ['native threads (C ABI)', async (threads) => abiThreadsOpsPerSecond(mr, threads, MiB, seconds)],
    ];
    for (const [kind, opsPerSecond] of kinds) {
      let one;
      for (const threads of [1, 2, 4, 8]) {
        const ops = (await opsPerSecond(threads)) / 1e6;
        one ??= ops;
        record(name, `${threads} ${kind}, pairs of 1 MiB`, ops, 'Mops/s', threadsTarget(threads, ops / one));
      }
    }
    mr[Symbol.dispose]();
  }

  // What each adaptor adds to a pair over a pool (target: <= 30 ns).
  const upstream = pool();
  const poolPair = median(() => abiPairNs(upstream, MiB, pairs), 7);
  record('adaptors over a pool', 'pool pair 1 MiB (C++)', poolPair, 'ns');
  for (const [name, make] of Object.entries(adaptorsOverAPool)) {
    const mr = make(upstream);
    // What it adds: against pool pairs measured in alternation with it (the host's drift between
    // one adaptor's rounds and the next is of the same order as the ~30 ns measured).
    const [pair, pool] = alternatingMedians([() => abiPairNs(mr, MiB, pairs), () => abiPairNs(upstream, MiB, pairs)]);
    record('adaptors over a pool', `${name} pair (C++)`, pair, 'ns');
    record('adaptors over a pool', `${name} adds to a pool pair (C++)`, pair - pool, 'ns', '(target <= 30)');
    mr[Symbol.dispose]();
  }
  benchLogging({ record, upstream, pairs, quick });
  upstream[Symbol.dispose]();
  base[Symbol.dispose]();
}

// The target column of a thread-scaling row: the ratio to one thread, and whether it meets its
// target; n/a where the machine has fewer cores than threads.
function threadsTarget(threads, ratio) {
  if (threads === 1) return '';
  const target = threads >= 8 ? 2 : 1;
  const { verdict } = judge(ratio, '>=', target, { workers: threads });
  return `${ratio.toFixed(2)}x 1 thread (target >= ${target}) ${verdict}`;
}

// The CSV allocation log over the pool: how much slower a logged pair is (target: <= 3x the
// unlogged pair) and how many events per second reach the file (target: >= 1,000,000).
function benchLogging({ record, upstream, pairs, quick }) {
  const file = join(tmpdir(), `rmmjs-bench-${process.pid}.csv`);
  const logged = new LoggingResourceAdaptor(upstream, { logFileName: file });
  // Against pool pairs measured in alternation with it (the ratio's target row uses both).
  const [pair, pool] = alternatingMedians([() => abiPairNs(logged, MiB, pairs), () => abiPairNs(upstream, MiB, pairs)]);
  record('adaptors over a pool', 'pool pair alongside the logged pair (C++)', pool, 'ns');
  record(
    'adaptors over a pool',
    'LoggingResourceAdaptor pair (C++)',
    pair,
    'ns',
    `${(pair / pool).toFixed(2)}x the pool pair (target <= 3)`,
  );
  const poolJs = median(() => pairNs(upstream, MiB, pairs));
  const loggedJs = median(() => pairNs(logged, MiB, pairs));
  record(
    'adaptors over a pool',
    'LoggingResourceAdaptor pair from JS',
    loggedJs,
    'ns',
    `${(loggedJs / poolJs).toFixed(2)}x the pool pair from JS (${poolJs.toFixed(0)} ns)`,
  );
  const events = quick ? 400_000 : 4_000_000;
  const perSecond = median(() => {
    const start = process.hrtime.bigint();
    abiPairNs(logged, MiB, events / 2);
    logged.flush();
    return events / (Number(process.hrtime.bigint() - start) / 1e9);
  }, 3);
  record(
    'adaptors over a pool',
    'LoggingResourceAdaptor events written to a file',
    perSecond / 1e6,
    'M/s',
    '(target >= 1)',
  );
  logged[Symbol.dispose]();
  rmSync(file, { force: true });
}
