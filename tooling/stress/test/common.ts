// What the stress suites share: the seed, the scale, and the fake driver's live objects.
import { conformanceSeed, fakeCuda, onFake } from '@rmmjs/test-helpers';

/** RMMJS_TEST_SEED, or a new seed each run (printed by each suite). */
export const seed = conformanceSeed;

/** RMMJS_STRESS_SCALE (default 1): multiplies the work of every suite (steps, rounds, faults). */
export const scale = (() => {
  const given = process.env.RMMJS_STRESS_SCALE;
  if (given === undefined || given === '') return 1;
  const value = Number(given);
  if (!(value > 0) || !Number.isFinite(value)) {
    throw new Error(`RMMJS_STRESS_SCALE must be a positive number, not "${given}"`);
  }
  return value;
})();

export const scaled = (n: number) => Math.max(1, Math.round(n * scale));

/** What the fake driver holds now (allocations, bytes, streams, events, pools); undefined elsewhere. */
export function liveInDriver() {
  if (!onFake()) return undefined;
  const { liveAllocations, liveBytes, liveStreams, liveEvents, livePools } = fakeCuda.stats();
  return { liveAllocations, liveBytes, liveStreams, liveEvents, livePools };
}
