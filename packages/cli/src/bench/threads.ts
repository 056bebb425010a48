// Operations per second with N worker_threads sharing one resource (given to each with share()):
// each does allocate+free pairs of `nbytes` for `seconds`.
import { Worker } from 'node:worker_threads';
import * as core from '@rmmjs/core';
import { integerIn, validateOptions, validatePositive, validateResource, validateSize } from '../validate.js';

const coreUrl = import.meta.resolve('@rmmjs/core');
const MAX_WORKERS = 256;
const MAX_SECONDS = 3600;

/**
 * Operations per second (an allocate+free pair counts as two) of `workers` worker threads (1 to 256)
 * sharing `mr`, each doing pairs of `nbytes` bytes (default 1 MiB) for `seconds` (default 1, at most
 * 3600). `mr` is its device's resource while they run; the previous one is put back.
 */
export async function threadOpsPerSecond(
  mr: core.DeviceMemoryResource,
  workers: number,
  options: { nbytes?: number; seconds?: number } = {},
): Promise<number> {
  validateResource(mr, 'mr');
  integerIn(1, MAX_WORKERS)(workers, 'workers');
  const given = validateOptions<typeof options>(options);
  // Both go into the workers' source: numbers only.
  const nbytes = given.nbytes === undefined ? 1 << 20 : validateSize(given.nbytes, 'options.nbytes');
  const seconds = given.seconds === undefined ? 1 : validatePositive(given.seconds, 'options.seconds', MAX_SECONDS);
  const previous = core.setPerDeviceResource(mr.device, mr);
  try {
    // Each worker gets `mr` itself: a worker's current device resource is that of its current device (0).
    const shared = JSON.stringify(mr.share());
    const threads = Array.from(
      { length: workers },
      () =>
        new Worker(
          `
      const { parentPort } = await import('node:worker_threads');
      const core = await import(${JSON.stringify(coreUrl)});
      const mr = core.DeviceMemoryResource.fromShared(${shared});
      for (let i = 0; i < 1000; i++) mr.deallocate(mr.allocate(${nbytes}), ${nbytes});
      parentPort.postMessage('ready');
      parentPort.once('message', () => {
        const start = performance.now();
        const end = start + ${seconds * 1000};
        let ops = 0;
        do { // one batch at least: a thread the scheduler kept off a core until the end still measures
          for (let i = 0; i < 256; i++) mr.deallocate(mr.allocate(${nbytes}), ${nbytes});
          ops += 512;
        } while (performance.now() < end);
        parentPort.postMessage(ops / ((performance.now() - start) / 1000));
      });`,
          { eval: true },
        ),
    );
    try {
      await Promise.all(threads.map((t) => nextMessage(t)));
      const done = threads.map((t) => nextMessage(t) as Promise<number>);
      for (const t of threads) t.postMessage('go');
      // Each worker's own rate over the time it measured, added up.
      return (await Promise.all(done)).reduce((a, b) => a + b, 0);
    } finally {
      await Promise.all(threads.map((t) => t.terminate()));
    }
  } finally {
    core.setPerDeviceResource(mr.device, previous);
  }
}

// The worker's next message; its error (out of memory in the middle, say), or its exit before it
// answered, rejects instead of leaving the caller waiting.
function nextMessage(worker: Worker): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown) => {
      settle();
      resolve(message);
    };
    const onError = (error: Error) => {
      settle();
      reject(error);
    };
    const onExit = (code: number) => {
      settle();
      reject(new Error(`a benchmark worker exited (code ${code}) before it answered`));
    };
    const settle = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
}
