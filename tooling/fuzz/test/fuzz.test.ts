// Fuzzes every public export of every package (see README.md) in a child process: a fixed seed
// and a random one (RMMJS_FUZZ_SEED repeats a run), RMMJS_FUZZ_CALLS calls in all per backend.
import { describe, expect, it } from 'vitest';
import { fuzz } from '../src/parent.js';
import { inventory } from '../src/inventory.js';

const FIXED_SEED = 0x5eed;
const randomSeed = process.env.RMMJS_FUZZ_SEED
  ? Number(process.env.RMMJS_FUZZ_SEED)
  : Math.floor(Math.random() * 2 ** 31);
const backend = process.env.RMMJS_TEST_BACKEND ?? 'host';
// The real driver is about ten times slower per call: 50,000 calls there outlast the time limit.
const calls = Number(process.env.RMMJS_FUZZ_CALLS ?? (backend === 'gpu' ? 10_000 : 50_000));
// Only a guard against a hang: a child that takes 20 s alone gets a fraction of a core while turbo
// runs every package's tests at once.
const timeoutMs = 480_000;

const { keys: surface } = await inventory();

function run(seed: number) {
  const started = Date.now();
  const result = fuzz({ seed, calls: Math.ceil(calls / 2), timeoutMs });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`fuzz (${backend}): seed ${seed}: ${result.calls} calls in ${result.runs} runs, ${seconds} s`);
  expect(result.failure, result.failure).toBeUndefined();
  expect(result.calls).toBeGreaterThanOrEqual(Math.ceil(calls / 2));
  return result;
}

describe('fuzzing every public export with hostile values', () => {
  let covered = new Set<string>();

  it(`a fixed seed (${FIXED_SEED})`, { timeout: 2 * timeoutMs + 120_000 }, () => {
    covered = new Set([...covered, ...run(FIXED_SEED).coverage]);
  });

  it(
    `a random seed (${randomSeed}; RMMJS_FUZZ_SEED=${randomSeed} repeats it)`,
    { timeout: 2 * timeoutMs + 120_000 },
    () => {
      covered = new Set([...covered, ...run(randomSeed).coverage]);
    },
  );

  it('every export, constructor, method and getter was called', () => {
    expect(surface.filter((key: string) => !covered.has(key))).toEqual([]);
  });
});
