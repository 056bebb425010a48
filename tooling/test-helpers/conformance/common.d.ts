// What common.js exports.
/** `size` bytes of a xorshift pattern for seed (a few ms for MiBs). */
export function fillPattern(size: number, seed: number): Uint8Array;
/** A size from 1 to max, uniform in its logarithm (mostly small, now and then large). */
export function randomSize(next: () => number, max: number): number;
/** Workers that have started. */
export const READY: number;
/** Set to 1n by the main thread once all have started. */
export const GO: number;
/** Blocks the producer published (-1n when it failed). */
export const PUBLISHED: number;
/** Then (pointer, size) pairs. */
export const FIRST_BLOCK: number;
/** In a worker: waits until `done(slots[index])`; throws once the main thread stored a negative value. */
export function waitFor(slots: BigInt64Array, index: number, done: (value: bigint) => boolean): void;
