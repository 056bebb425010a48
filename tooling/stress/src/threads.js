// Workload workers (src/worker.js) as promises.
import { Worker } from 'node:worker_threads';

const workerUrl = new URL('./worker.js', import.meta.url);

// The answer of a run: its result, or a rejection with the worker's stack.
function answer(message, resolve, reject) {
  if (message.error !== undefined) reject(new Error(`worker: ${message.error}`));
  else resolve({ counts: message.done, resource: message.resource });
}

/**
 * Starts a worker for one run of a Workload with `options` (see worker.js). Returns `{ worker,
 * firstProgress, done }`: `firstProgress` resolves at its first progress message, `done` with its
 * result ({ counts, resource }), or { exitCode } when it exited without one (terminated); a
 * failure inside the worker rejects `done` with its stack.
 */
export function startWorker(options) {
  const worker = new Worker(workerUrl, { workerData: options });
  let progressed;
  const firstProgress = new Promise((resolve) => (progressed = resolve));
  const done = new Promise((resolve, reject) => {
    let settled = false;
    worker.on('message', (message) => {
      if (message.progress !== undefined) return progressed(message.progress);
      settled = true;
      answer(message, resolve, reject);
    });
    worker.once('error', reject);
    worker.once('exit', (exitCode) => settled || resolve({ exitCode }));
  });
  done.catch(() => {}); // a failure is the caller's to see when it awaits done, not an unhandled rejection
  return { worker, firstProgress, done };
}

/**
 * `count` workers that each run one Workload per `run(options)` call (for suites that run many
 * rounds: a worker takes long to start). `close()` terminates them.
 */
export async function workerPool(count) {
  const workers = Array.from({ length: count }, () => new Worker(workerUrl, { workerData: { serve: true } }));
  await Promise.all(
    workers.map(
      (worker) =>
        new Promise((resolve, reject) => {
          worker.once('message', resolve);
          worker.once('error', reject);
        }),
    ),
  );
  return {
    /** One run on every worker; options(i) gives worker i's. */
    run: (options) =>
      Promise.all(
        workers.map(
          (worker, i) =>
            new Promise((resolve, reject) => {
              const onMessage = (message) => {
                if (message.progress !== undefined) return;
                worker.off('message', onMessage);
                worker.off('error', reject);
                answer(message, resolve, reject);
              };
              worker.on('message', onMessage);
              worker.once('error', reject);
              worker.postMessage(options(i));
            }),
        ),
      ),
    close: () => Promise.all(workers.map((worker) => worker.terminate())),
  };
}
