// Scrambles a log's columns (shared memory) from this thread: waits for `control[GO]`, then writes
// random values into every column until `control[STOP]`; answers how many passes it made.
import { workerData } from 'node:worker_threads';
import { answer } from '@rmmjs/test-helpers/worker';

const GO = 0;
const STOP = 1;

/** @type {{ columns: (Uint8Array | Int32Array | Float64Array)[], control: Int32Array }} */
const { columns, control } = workerData;

await answer(() => {
  Atomics.wait(control, GO, 0);
  let seed = 0x9e3779b9;
  const next = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return seed >>> 0;
  };
  let passes = 0;
  while (Atomics.load(control, STOP) === 0) {
    for (const column of columns) {
      for (let i = 0; i < column.length; i++) column[i] = next() % 4;
    }
    passes++;
  }
  return passes;
});
