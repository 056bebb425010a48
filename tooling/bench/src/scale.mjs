// The pool's and the arena's cost per operation as live allocations grow (target: with 1,000,000
// live at most twice that with 1,000). N blocks of 1 B..64 KiB stay live, each followed by a hole
// of 1 B..4 KiB that is freed before measuring (so the free blocks the allocator searches grow
// with N too, as in a fragmented heap), while the random workload churns on top: up to 1,000 live
// blocks of 1 B..64 KiB, from JS and through the C ABI. The live set is kept in typed arrays,
// so what grows is the allocator's work, not the cost of holding a million JS objects.
//
// 1,000,000 live blocks and their holes take about 33 GiB: the pool's initial size and the
// arena's size are set from the live set's bytes. Where the largest count does not fit in the
// free memory (device memory, or host memory in host mode), the largest that does is measured
// and a line says so.
import { freemem } from 'node:os';
import * as core from '@rmmjs/core';
import { ArenaMemoryResource } from '@rmmjs/arena';
import { PoolMemoryResource } from '@rmmjs/pool';
import { random } from '@rmmjs/test-helpers/bytes';
import { abiRandomNs } from '@rmmjs/test-addon';
import { randomWorkload, runRandomWorkload } from '@rmmjs/cli';
import { median } from './timing.mjs';

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;
const LIVE = [1_000, 100_000, 1_000_000];
const aligned = (bytes) => Math.ceil(bytes / 256) * 256;
const gib = (bytes) => `${(bytes / GiB).toFixed(1)} GiB`;

// The live blocks and holes of the largest count; a smaller count takes the first ones.
function liveSet(count) {
  const next = random(9);
  const sizes = new Float64Array(count);
  const holes = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    sizes[i] = 1 + Math.floor(next() * 64 * KiB);
    holes[i] = 1 + Math.floor(next() * 4 * KiB);
  }
  return { sizes, holes };
}

// The bytes of the first `count` live blocks and holes.
function bytesOf({ sizes, holes }, count) {
  let bytes = 0;
  for (let i = 0; i < count; i++) bytes += aligned(sizes[i]) + aligned(holes[i]);
  return bytes;
}

// What each resource takes from its upstream for a live set of `bytes`: room for the churn (1,000
// blocks of up to 64 KiB) and, in the arena, for superblocks left part empty.
const poolSize = (bytes) => aligned(bytes + bytes / 50 + 128 * MiB);
const arenaSize = (bytes) => aligned(bytes + bytes / 10 + 256 * MiB);

// Allocates the live set with its holes, then frees the holes; a failure frees what it took.
function hold(mr, { sizes, holes }, count) {
  const live = new BigUint64Array(count);
  const gaps = new BigUint64Array(count);
  let i = 0;
  try {
    for (; i < count; i++) {
      live[i] = mr.allocate(sizes[i]);
      gaps[i] = mr.allocate(holes[i]);
    }
  } catch (error) {
    // The pair i is not whole: its live block, if it was allocated, is at live[i].
    if (live[i] !== 0n) mr.deallocate(live[i], sizes[i]);
    release(mr, live, sizes, i);
    release(mr, gaps, holes, i);
    throw error;
  }
  release(mr, gaps, holes, count);
  return live;
}

function release(mr, pointers, sizes, count) {
  for (let i = 0; i < count; i++) mr.deallocate(pointers[i], sizes[i]);
}

/** Records the scale rows of the pool and the arena over `base`. */
export function benchScale({ record, quick, gpu, base }) {
  const free = gpu ? core.availableDeviceMemory()[0] : freemem();
  const set = liveSet(LIVE.at(-1));
  // The counts whose arena (the larger of the two resources) fits in 80% of what is free.
  const counts = LIVE.filter((count) => arenaSize(bytesOf(set, count)) <= free * 0.8);
  const where = `${gib(free)} free (${gpu ? 'device' : 'host'})`;
  if (counts.length < LIVE.length) {
    const most = counts.at(-1);
    console.log(
      `scale: ${LIVE.at(-1).toLocaleString('en-US')} live need ${gib(arenaSize(bytesOf(set, LIVE.at(-1))))}, ${where}: ` +
        (most === undefined ? 'not measured' : `measuring up to ${most.toLocaleString('en-US')} live`),
    );
    if (most === undefined) return;
  }
  const bytes = bytesOf(set, counts.at(-1));
  // The churn on top: a cost per op, so a shorter one where each op costs more (at 1,000,000 live
  // an op costs ~30 us on the H200, and 200,000 steps x 4 rounds x 2 paths would take minutes).
  const churnSteps = (count) => (quick ? 20_000 : count >= 1_000_000 ? 20_000 : count >= 100_000 ? 50_000 : 200_000);
  const churns = new Map(
    counts.map((count) => [
      count,
      randomWorkload({ steps: churnSteps(count), maxSize: 64 * KiB, maxLive: 1000, seed: 7 }),
    ]),
  );
  const resources = [
    ['PoolMemoryResource', () => new PoolMemoryResource(base, { initialPoolSize: poolSize(bytes) })],
    ['ArenaMemoryResource', () => new ArenaMemoryResource(base, { arenaSize: arenaSize(bytes) })],
  ];
  for (const [name, make] of resources) {
    try {
      measure(name, make(), set, counts, churns, record);
    } catch (error) {
      // Out of memory, say: the other resource and the rest of the bench still run.
      console.log(`scale: ${name} stopped: ${error.message}`);
    }
  }
}

// The rows of one resource for each count; frees what it holds and disposes of mr, also on failure.
function measure(name, mr, set, counts, churns, record) {
  try {
    for (const count of counts) {
      const churn = churns.get(count);
      const live = hold(mr, set, count);
      try {
        record(
          name,
          `random ops with ${count} extra live (JS)`,
          median(() => runRandomWorkload(mr, churn), 3),
          'ns/op',
        );
        record(
          name,
          `random ops with ${count} extra live (C++)`,
          median(() => abiRandomNs(mr, churn.sizes, churn.frees), 3),
          'ns/op',
        );
      } finally {
        release(mr, live, set.sizes, count);
      }
    }
  } finally {
    mr[Symbol.dispose]();
  }
}

/**
 * The scale targets: per resource, the cost per operation with the most live blocks measured
 * over that with 1,000 (`value(group, row name prefix)` looks a row up).
 */
export function scaleTargets(value) {
  return ['PoolMemoryResource', 'ArenaMemoryResource'].flatMap((name) => {
    const row = (count, side) => value(name, `random ops with ${count} extra live (${side})`);
    const most = LIVE.slice(1)
      .reverse()
      .find((count) => row(count, 'C++') !== undefined);
    if (most === undefined) return [];
    return ['C++', 'JS'].map((side) => [
      `${name.replace('MemoryResource', '')} at ${most.toLocaleString('en-US')} live / at 1,000 (${side})`,
      row(most, side),
      row(1000, side),
      '<=',
      2,
    ]);
  });
}
