// The seed of the random sizes and patterns: RMMJS_TEST_SEED, else a new one each run (printed).

export const conformanceSeed: number = (() => {
  const given = process.env.RMMJS_TEST_SEED;
  if (given === undefined) return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(given);
  if (!Number.isSafeInteger(seed) || seed < 0)
    throw new Error(`RMMJS_TEST_SEED must be a non-negative integer, not "${given}"`);
  return seed;
})();

let seedPrinted = false;
/** Prints the seed once per file (a beforeAll of every resource's suite). */
export function printSeedOnce(): void {
  if (!seedPrinted) console.log(`conformance: random sizes and patterns from RMMJS_TEST_SEED=${conformanceSeed}`);
  seedPrinted = true;
}

/** Adds to an error's message how to repeat the run that threw it. */
export function withSeed(error: unknown): unknown {
  if (error instanceof Error) error.message = `${error.message} (RMMJS_TEST_SEED=${conformanceSeed} repeats it)`;
  return error;
}
