// Helpers of this suite: the worker modules (test/workers/), and the runner of child processes.
import { runInProcess } from '@rmmjs/test-helpers';

/** The URL of the worker module test/workers/<name>.js (for runWorker). */
export const workerModule = (name: string): URL => new URL(`./workers/${name}.js`, import.meta.url);

/**
 * The expression that starts the worker module test/workers/<name>.js in a child process's code,
 * without the child's `--input-type` (a worker started from a file refuses it).
 */
export const workerInChild = (name: string): string =>
  `new (await import('node:worker_threads')).Worker(new URL(${JSON.stringify(workerModule(name).href)}), { execArgv: [] })`;

/** Runs `code` in a fresh `node --expose-gc` with `core` and `callback` imported. */
export const runNode = (code: string) =>
  runInProcess(code, { modules: { callback: '@rmmjs/callback' }, nodeArgs: ['--expose-gc'] });
