// Core's ShardedPointerTable (the handed-out tables of the pool, the arena, binning, limiting,
// tracking and the system resource) must spread allocator-shaped keys over its slots: a lookup
// that probes long runs makes every free cost in proportion to the live allocations.
import { expect, it } from 'vitest';
import { pointerTableProbes } from '../index.js';

const pointers = (count: number, at: (i: number) => bigint) => BigUint64Array.from({ length: count }, (_, i) => at(i));
const base = 0x7f00_0000_0000n;

it.each([
  ['256-byte neighbours', (i: number) => base + BigInt(i) * 256n],
  ['blocks 1 MiB apart', (i: number) => base + BigInt(i) * 1048576n],
  ['blocks 64 KiB + 256 B apart', (i: number) => base + BigInt(i) * 65792n],
  ['2 MiB pages of another region', (i: number) => 0x2000_0000_0000n + BigInt(i) * 2097152n],
])('%s: a lookup of one of 200,000 keys reads under 2 slots on average, never 100', (_, at) => {
  const { mean, longest, ownLines } = pointerTableProbes(pointers(200_000, at));
  expect(mean).toBeGreaterThanOrEqual(1);
  expect(mean).toBeLessThan(2);
  expect(longest).toBeLessThan(100);
  expect(ownLines).toBe(true);
});

it('finds every key it holds, and an empty table reads nothing', () => {
  expect(pointerTableProbes(pointers(1, () => base))).toEqual({ mean: 1, longest: 1, ownLines: true });
  expect(pointerTableProbes(new BigUint64Array(0))).toEqual({ mean: 0, longest: 0, ownLines: true });
});

// Two threads that each reuse their own block write the slots of two shards at every allocation and
// free: when those slots shared a cache line, the line went back and forth between the cores, and 2
// threads made fewer pairs than 1 in about half of the processes.
it.each([1, 17, 1000, 5000])("every shard's slots take whole cache lines of their own (%i keys)", (count) => {
  expect(pointerTableProbes(pointers(count, (i) => base + BigInt(i) * 1048576n)).ownLines).toBe(true);
});
