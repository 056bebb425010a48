// Four workers (workers/debug-lines.js) log 500 lines each at once; ends when all have exited.
import { Worker } from 'node:worker_threads';
import '@rmmjs/logging';

await Promise.all(
  [0, 1, 2, 3].map(
    (n) =>
      new Promise((resolve, reject) => {
        const worker = new Worker(new URL('../workers/debug-lines.js', import.meta.url), { workerData: n });
        worker.once('exit', resolve);
        worker.once('error', reject);
      }),
  ),
);
