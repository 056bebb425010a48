// A process that ends with work in flight, over a pool under a limiting adaptor that counts what
// is live (the current device resource). Its arguments: the big buffer's bytes, then either
// `main <ending>` (this thread starts the work (workers/start-work.js) and ends as mainEndings
// says) or `worker <ending> <onStarted>` (a worker runs workers/exits-working.js with that
// ending, and when it says it started this thread does as onStarted says; once the worker has
// exited, prints, as JSON, its exit code and the bytes the adaptor still counts).
import { Worker } from 'node:worker_threads';
import { getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { PoolMemoryResource } from '@rmmjs/pool';
import { MiB } from '@rmmjs/test-helpers/bytes';
import { startWork } from '../workers/start-work.js';

const [bigBytes, where, ending, onStarted] = process.argv.slice(2);
const pooled = new PoolMemoryResource(getCurrentDeviceResource(), { initialPoolSize: 4 * MiB });
const counted = new LimitingResourceAdaptor(pooled, 1024 * MiB);
setCurrentDeviceResource(counted);

/** @type {Record<string, () => void>} */
const mainEndings = {
  end: () => console.log('started'),
  exit: () => process.exit(0),
  'exit-from-timer': () => setTimeout(() => process.exit(7), 1),
  'exit-code': () => (process.exitCode = 3),
  throw: () =>
    setTimeout(() => {
      throw new Error('boom at exit');
    }, 1),
  reject: () => void Promise.reject(new Error('rejected at exit')),
};

if (where === 'main') {
  startWork(Number(bigBytes));
  mainEndings[ending]();
} else {
  const worker = new Worker(new URL('../workers/exits-working.js', import.meta.url), {
    workerData: { bigBytes: Number(bigBytes), ending },
  });
  /** @type {Record<string, () => void>} */
  const onStart = { wait: () => {}, terminate: () => void worker.terminate(), exit: () => process.exit(0) };
  worker.on('error', (error) => console.error(`worker error: ${error.message}`));
  worker.once('message', onStart[onStarted]);
  const exitCode = await new Promise((resolve) => worker.once('exit', resolve));
  console.log(JSON.stringify({ exitCode, counted: counted.getAllocatedBytes() }));
}
