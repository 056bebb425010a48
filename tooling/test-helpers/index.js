// Helpers shared by the packages' suites.
import { createRequire } from 'node:module';
import { isAbsolute, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

export { fakeCuda, libraryPath as fakeCudaLibraryPath } from '@rmmjs/fake-cuda';

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

/** Asserts two byte arrays are equal without vitest's slow element-wise diff of big arrays. */
export function expectBytes(actual, expected) {
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

/** Imports a workspace package as the package under test resolves it. */
export function resolveFromPackage(name) {
  return createRequire(join(process.cwd(), 'package.json')).resolve(name);
}

/**
 * Runs `source` (the body of an async function) in a worker thread and resolves with what it
 * returns; a throw rejects with `Error("<code>: <message>")`. In scope: `core` (@rmmjs/core as the
 * package under test resolves it), `workerData`, and one variable per entry of `modules`
 * (name -> package name or absolute path). Settles once the worker is gone, so its references
 * to resources have been released by then.
 */
export function runInWorker(source, { modules = {}, workerData } = {}) {
  const imports = Object.entries({ core: '@rmmjs/core', ...modules })
    .map(([name, module]) => {
      const url = pathToFileURL(isAbsolute(module) ? module : resolveFromPackage(module)).href;
      return `const ${name} = await import(${JSON.stringify(url)});`;
    })
    .join('\n');
  const worker = new Worker(
    `(async () => {
      const { parentPort, workerData } = await import('node:worker_threads');
      try {
        ${imports}
        parentPort.postMessage({ ok: await (async () => { ${source} })() });
      } catch (e) { parentPort.postMessage({ error: e.code + ': ' + e.message }); }
    })();`,
    { eval: true, workerData },
  );
  return new Promise((resolve, reject) => {
    worker.once('message', (message) => {
      void worker.terminate().then(() => {
        if (message.error) reject(new Error(message.error));
        else resolve(message.ok);
      });
    });
    worker.once('error', reject);
  });
}
