// The worker's side of runWorker (workers.js), as `@rmmjs/test-helpers/worker`: plain JavaScript
// with Node built-ins only, since a worker runs without vitest.
import { parentPort } from 'node:worker_threads';

/**
 * Runs `work` and posts what it returns, or its error as "<code>: <message>", to the thread that
 * started this worker with runWorker (the last statement of a worker module).
 * @param {() => unknown} work
 */
export async function answer(work) {
  if (parentPort === null) throw new Error('answer() runs in a worker started by runWorker');
  try {
    parentPort.postMessage({ ok: await work() });
  } catch (error) {
    const { code, message } = /** @type {{ code?: string, message?: string }} */ (error);
    parentPort.postMessage({ error: `${code}: ${message}` });
  }
}
