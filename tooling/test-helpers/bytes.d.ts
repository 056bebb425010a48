// bytes.js (also re-exported by the package's main entry)
export const KiB: number;
export const MiB: number;
export const GiB: number;
export const PiB: number;
/** A deterministic byte pattern for seed. */
export function pattern(length: number, seed: number): Uint8Array;
/** Index of the first difference, or -1. */
export function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number;
/** Asserts two byte arrays are equal (throws an Error naming the first difference). */
export function expectBytes(actual: ArrayLike<number>, expected: ArrayLike<number>): void;
/** Whether two byte views hold the same bytes (memcmp speed). */
export function equalBytes(a: ArrayBufferView, b: ArrayBufferView): boolean;
/** A small deterministic random generator (mulberry32): numbers in [0, 1). */
export function random(seed: number): () => number;
