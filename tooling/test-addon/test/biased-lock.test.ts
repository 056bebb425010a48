// Core's BiasedLock (the statistics adaptor's lock): its owner takes it without an atomic until
// another thread takes it, which revokes the bias for good. Mutual exclusion must hold throughout,
// most of all while the bias is revoked under the owner's feet.
import { platform } from 'node:os';
import { expect, it } from 'vitest';
import { biasedLockRun } from '../index.js';

it('stays biased while one thread takes it, and counts exactly', () => {
  const run = biasedLockRun({ threads: 0, iterations: 100_000 });
  // Linux has had the barrier since 4.14 (a sandbox that filters the system call would not).
  expect(run.barrier).toBe(platform() === 'linux');
  expect(run).toEqual({
    total: 200_000,
    expected: 200_000,
    overlaps: 0,
    biasedAlone: run.barrier,
    biasedAfter: run.barrier,
    barrier: run.barrier,
  });
});

it.each([1, 3, 7])('lets one thread in at a time when %i more threads take it while its owner does', (threads) => {
  for (let round = 0; round < 20; round++) {
    const run = biasedLockRun({ threads, iterations: 20_000 });
    expect(run.overlaps).toBe(0);
    expect(run.total).toBe(run.expected);
    expect(run.biasedAfter).toBe(false);
  }
});
