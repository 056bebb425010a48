// The benchmark workloads of `rmmjs bench`. The random workload is public: the repository's
// benchmark scripts run it too (from JavaScript, and through the C ABI in C++).
import { invalidArgValue } from '@rmmjs/core/internal';
import {
  integerIn,
  isFloat64Array,
  typedArray,
  validateAllocator,
  validateFunction,
  validateObject,
  validateOptions,
  validateSize,
} from '../validate.js';

const seedCheck = integerIn(-(2 ** 31), 2 ** 32 - 1);

/** mulberry32: a small deterministic generator. */
export function random(seed: number): () => number {
  let a = seedCheck(seed, 'seed') >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random workload from `randomWorkload`: one entry per step in `sizes` and in `frees`. */
export interface RandomWorkload {
  /** Each step's allocation size in bytes; 0 for a step that frees. */
  sizes: Float64Array;
  /** For a step that frees, the index of the live allocation to free (the last live one takes its place). */
  frees: Float64Array;
  /** The number of steps. */
  steps: number;
  /** The allocations still live after the last step (`runRandomWorkload` frees them, and counts them). */
  remaining: number;
}

/**
 * The random workload: at each step free a random live allocation (swap-remove)
 * when any is live and a fair coin says so or maxLive are live, else allocate a size uniform in
 * [minSize, maxSize]. sizes[i] > 0 is an allocation; else frees[i] is the index to free.
 */
export function randomWorkload(
  options: { steps?: number; minSize?: number; maxSize?: number; maxLive?: number; seed?: number } = {},
): RandomWorkload {
  const given = validateOptions<typeof options>(options);
  const option = (key: keyof typeof options, fallback: number, min: number, max?: number) =>
    given[key] === undefined ? fallback : integerIn(min, max)(given[key], `options.${key}`);
  const steps = option('steps', 100_000, 0, 2 ** 31 - 1);
  const minSize = option('minSize', 1, 1); // a size of 0 is a free
  const maxSize = option('maxSize', Math.max(4 << 20, minSize), minSize);
  const maxLive = option('maxLive', 1000, 1);
  const seed = option('seed', 42, -(2 ** 31), 2 ** 32 - 1);
  const next = random(seed);
  const sizes = new Float64Array(steps);
  const frees = new Float64Array(steps);
  let live = 0;
  for (let i = 0; i < steps; i++) {
    if (live > 0 && (live >= maxLive || next() < 0.5)) {
      frees[i] = Math.floor(next() * live);
      live--;
    } else {
      sizes[i] = minSize + Math.floor(next() * (maxSize - minSize + 1));
      live++;
    }
  }
  return { sizes, frees, steps, remaining: live };
}

/** What the workloads allocate from: any resource. */
export interface Allocator {
  /** Allocates `nbytes` bytes; returns the address. */
  allocate(nbytes: number): bigint;
  /** Frees the `nbytes` bytes at `ptr` that `allocate` returned. */
  deallocate(ptr: bigint, nbytes: number): void;
}

/** Runs the workload on mr from JavaScript; returns ns per operation. A failure frees what is live, then throws. */
export function runRandomWorkload(mr: Allocator, workload: Pick<RandomWorkload, 'sizes' | 'frees'>): number {
  validateAllocator(mr, 'mr');
  const { sizes, frees } = validateWorkload(workload);
  const pointers: bigint[] = [];
  const lengths: number[] = [];
  let operations = 0;
  const start = process.hrtime.bigint();
  try {
    for (let i = 0; i < sizes.length; i++) {
      const size = sizes[i];
      if (size > 0) {
        pointers.push(mr.allocate(size));
        lengths.push(size);
      } else {
        const at = frees[i];
        mr.deallocate(pointers[at], lengths[at]);
        pointers[at] = pointers[pointers.length - 1];
        lengths[at] = lengths[lengths.length - 1];
        pointers.pop();
        lengths.pop();
      }
      operations++;
    }
  } catch (error) {
    // Out of memory part of the way: give back what is live before saying so.
    for (let i = 0; i < pointers.length; i++) mr.deallocate(pointers[i], lengths[i]);
    throw error;
  }
  for (let i = 0; i < pointers.length; i++) mr.deallocate(pointers[i], lengths[i]);
  operations += pointers.length;
  return Number(process.hrtime.bigint() - start) / operations;
}

/** ns per allocate+deallocate pair of nbytes from JavaScript. */
export function pairNs(mr: Allocator, nbytes: number, iterations: number): number {
  validateAllocator(mr, 'mr');
  validateSize(nbytes, 'nbytes');
  integerIn(1)(iterations, 'iterations');
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) mr.deallocate(mr.allocate(nbytes), nbytes);
  return Number(process.hrtime.bigint() - start) / iterations;
}

/** The median of `rounds` runs of fn after one warm-up run. */
export function median(fn: () => number, rounds = 5): number {
  validateFunction(fn, 'fn');
  integerIn(1, 2 ** 31 - 1)(rounds, 'rounds');
  fn();
  const values = Array.from({ length: rounds }, fn).sort((a, b) => a - b);
  return values[Math.floor(rounds / 2)];
}

/** A workload argument (its two columns, read once): each free frees an allocation that is live. */
function validateWorkload(value: unknown): Pick<RandomWorkload, 'sizes' | 'frees'> {
  const { sizes, frees } = validateObject(value, 'workload');
  typedArray(isFloat64Array, 'Float64Array')(sizes, 'workload.sizes');
  typedArray(isFloat64Array, 'Float64Array')(frees, 'workload.frees');
  if ((frees as Float64Array).length < (sizes as Float64Array).length) {
    throw invalidArgValue('workload.frees', 'must have an entry for each step of workload.sizes');
  }
  let live = 0;
  for (let i = 0; i < (sizes as Float64Array).length; i++) {
    const size = (sizes as Float64Array)[i];
    const at = (frees as Float64Array)[i];
    if (size > 0 && Number.isSafeInteger(size)) live++;
    else if (size === 0 && Number.isInteger(at) && at >= 0 && at < live) live--;
    else throw invalidArgValue('workload', `step ${i} is neither an allocation nor a free of one of the ${live} live`);
  }
  return { sizes: sizes as Float64Array, frees: frees as Float64Array };
}
