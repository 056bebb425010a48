// Helpers of this suite: the paths the eval'd workers and child processes import, and runners.
import { resolveFromPackage, runInProcess, runInWorker } from '@rmmjs/test-helpers';

export const coreEntry = resolveFromPackage('@rmmjs/core');
export const internalEntry = resolveFromPackage('@rmmjs/core/internal');
export const callbackEntry = resolveFromPackage('@rmmjs/callback');

/**
 * Runs `source` (the body of an async function with `core` in scope) in a worker thread and
 * resolves with what it returns, once the worker has exited; a throw rejects with `code: message`.
 */
export const runWorker = (source: string, workerData?: unknown): Promise<unknown> =>
  runInWorker(source, { workerData });

/** Runs `code` in a fresh `node --expose-gc` with `core` and `callback` imported. */
export const runNode = (code: string) =>
  runInProcess(code, { modules: { callback: '@rmmjs/callback' }, nodeArgs: ['--expose-gc'] });
