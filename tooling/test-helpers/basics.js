// The small helpers every suite uses: the backend, byte patterns, errors, sizes, resolution.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export * from './bytes.js';

/** 'host' (no CUDA), 'fake' (tooling/fake-cuda) or 'gpu' (the real driver). */
export function backend() {
  return process.env.RMMJS_TEST_BACKEND ?? 'host';
}

export const onHost = () => backend() === 'host';
export const onFake = () => backend() === 'fake';
export const onGpu = () => backend() === 'gpu';
export const withCuda = () => backend() !== 'host';

/** Whether the suite runs under NVIDIA's compute-sanitizer (`sanitize-gpu.mjs` says so). */
export const underComputeSanitizer = () => process.env.RMMJS_TEST_COMPUTE_SANITIZER === '1';

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
  const require = createRequire(join(process.cwd(), 'package.json'));
  // Node resolves a package's own name only through its `exports`; one without them (a private
  // tooling package such as @rmmjs/test-addon) is its own folder.
  if (name === packageUnderTest.name && packageUnderTest.exports === undefined) return require.resolve(process.cwd());
  return require.resolve(name);
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
