// What the main thread's cases and the worker modules both use: byte patterns, random sizes and
// the shared slots they meet in. Plain JavaScript with no imports, since workers run without vitest.

/** `size` bytes of a xorshift pattern for seed (a few ms for MiBs). */
export function fillPattern(size, seed) {
  const words = new Uint32Array(Math.ceil(size / 4));
  let x = seed | 0 || 1;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x;
  }
  return new Uint8Array(words.buffer, 0, size);
}

/** A size from 1 to max, uniform in its logarithm (mostly small, now and then large). */
export function randomSize(next, max) {
  return Math.min(max, Math.max(1, Math.round(Math.exp(next() * Math.log(max)))));
}

// Shared slots of the worker cases (a BigInt64Array over a SharedArrayBuffer). Workers wait
// with Atomics.wait; the main thread polls, since its event loop must keep running.
/** Workers that have started. */
export const READY = 0;
/** Set to 1n by the main thread once all have started. */
export const GO = 1;
/** Blocks the producer published (-1n when it failed). */
export const PUBLISHED = 2;
/** Then (pointer, size) pairs. */
export const FIRST_BLOCK = 3;

/** In a worker: waits until `done(slots[index])`; throws once the main thread stored a negative value. */
export function waitFor(slots, index, done) {
  for (let value; !done((value = Atomics.load(slots, index)));) {
    if (value < 0n) throw new Error('the main thread failed');
    if (Atomics.wait(slots, index, value, 100000) === 'timed-out')
      throw new Error('nothing from the main thread in 100 s');
  }
}
