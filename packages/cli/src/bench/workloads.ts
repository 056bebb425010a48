// The benchmark workloads, shared by `rmmjs bench` and the repository's benchmark scripts (which
// also run them through the C ABI in C++).

/** mulberry32: a small deterministic generator. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
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
export function randomWorkload({
  steps = 100_000,
  minSize = 1,
  maxSize = 4 << 20,
  maxLive = 1000,
  seed = 42,
}: { steps?: number; minSize?: number; maxSize?: number; maxLive?: number; seed?: number } = {}): RandomWorkload {
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
export function runRandomWorkload(mr: Allocator, { sizes, frees }: Pick<RandomWorkload, 'sizes' | 'frees'>): number {
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
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) mr.deallocate(mr.allocate(nbytes), nbytes);
  return Number(process.hrtime.bigint() - start) / iterations;
}

/** The median of `rounds` runs of fn after one warm-up run. */
export function median(fn: () => number, rounds = 5): number {
  fn();
  const values = Array.from({ length: rounds }, fn).sort((a, b) => a - b);
  return values[Math.floor(rounds / 2)];
}
