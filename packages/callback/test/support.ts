// Helpers of this suite: the worker modules (test/workers/), and the runner of the child scripts
// (test/children/).
import { runInProcess } from '@rmmjs/test-helpers';

/** The URL of the worker module test/workers/<name>.js (for runWorker). */
export const workerModule = (name: string): URL => new URL(`./workers/${name}.js`, import.meta.url);

/** Runs the child script test/children/<name>.js in a fresh `node --expose-gc` (for its collect()). */
export const runChild = (name: string) =>
  runInProcess(new URL(`./children/${name}.js`, import.meta.url), { nodeArgs: ['--expose-gc'] });
