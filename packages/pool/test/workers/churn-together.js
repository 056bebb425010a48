// churn(workerData.seed, workerData.rounds) once every worker has reached the barrier
// (workerData.flags: [arrived, go]) and the main thread lets them all go at once.
import { answer } from '@rmmjs/test-helpers/worker';
import { workerData } from 'node:worker_threads';
import { churn } from './churn.js';

/** @type {{ flags: SharedArrayBuffer, seed: number, rounds: number }} */
const { flags, seed, rounds } = workerData;

await answer(() => {
  const barrier = new Int32Array(flags);
  Atomics.add(barrier, 0, 1);
  Atomics.wait(barrier, 1, 0);
  return churn(seed, rounds);
});
