// The small helpers every suite uses: the backend, byte patterns, errors, sizes, resolution.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const KiB = 1024;
export const MiB = 1024 * KiB;
export const GiB = 1024 * MiB;
export const PiB = 2 ** 50;

/** 'host' (no CUDA), 'fake' (tooling/fake-cuda) or 'gpu' (the real driver). */
export function backend() {
  return process.env.RMMJS_TEST_BACKEND ?? 'host';
}

export const onHost = () => backend() === 'host';
export const onFake = () => backend() === 'fake';
export const onGpu = () => backend() === 'gpu';
export const withCuda = () => backend() !== 'host';

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

/** The thrown error of fn (fails when fn does not throw). */
export function thrown(fn) {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

/** The rejection of a promise (fails when it resolves). */
export async function rejected(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

/** The path of a workspace package (or one of its exports) as the package under test resolves it. */
export function resolveFromPackage(name) {
  return createRequire(join(process.cwd(), 'package.json')).resolve(name);
}

/** Imports a workspace package as the package under test resolves it (the instance its tests import). */
export function importFromPackage(name) {
  return import(pathToFileURL(resolveFromPackage(name)).href);
}

/** The package.json of the package under test. */
export const packageUnderTest = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8'));

/** Whether the package under test is `name` or lists it in its (dev, peer) dependencies. */
export function packageUses(name) {
  const { dependencies = {}, devDependencies = {}, peerDependencies = {} } = packageUnderTest;
  return packageUnderTest.name === name || name in dependencies || name in devDependencies || name in peerDependencies;
}
