// Helpers of this suite: the paths the eval'd workers import, and the worker runner.
import { resolveFromPackage, runInWorker } from '@rmmjs/test-helpers';

export const coreEntry = resolveFromPackage('@rmmjs/core');
export const failureCallbackEntry = resolveFromPackage('@rmmjs/failure-callback');
export const callbackEntry = resolveFromPackage('@rmmjs/callback');
export const limitingEntry = resolveFromPackage('@rmmjs/limiting');

/**
 * Runs `source` (the body of an async function with `core` in scope) in a worker thread and
 * resolves with what it returns, once the worker has exited; a throw rejects with `code: message`.
 */
export const runWorker = (source: string): Promise<unknown> => runInWorker(source);
