// Sizes, byte patterns and a seeded random generator: what the test suites and the stress tools
// (tooling/stress, tooling/scripts/soak.mjs) share. Node built-ins only, so that it also loads
// outside a test runner, as `@rmmjs/test-helpers/bytes`.
export const KiB = 1024;
export const MiB = 1024 * KiB;
export const GiB = 1024 * MiB;
export const PiB = 2 ** 50;

/** A deterministic byte pattern for seed. */
export function pattern(length, seed) {
  const bytes = new Uint8Array(length);
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    bytes[i] = x & 0xff;
  }
  return bytes;
}

/** Index of the first difference, or -1. */
export function firstDifference(a, b) {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

function bytesOf(view) {
  return Buffer.from(view.buffer, view.byteOffset, view.byteLength);
}

/** Whether two byte views hold the same bytes (memcmp speed). */
export function equalBytes(a, b) {
  return a.byteLength === b.byteLength && Buffer.compare(bytesOf(a), bytesOf(b)) === 0;
}

/** Asserts two byte arrays are equal without vitest's slow element-wise diff of big arrays. */
export function expectBytes(actual, expected) {
  if (ArrayBuffer.isView(actual) && ArrayBuffer.isView(expected) && equalBytes(actual, expected)) return;
  const at = firstDifference(actual, expected);
  if (at !== -1) {
    throw new Error(
      `bytes differ at index ${at} (lengths ${actual.length} and ${expected.length}): ` +
        `${actual[at]} !== ${expected[at]}`,
    );
  }
}

/** A small deterministic random generator (mulberry32), for reproducible workloads. */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
