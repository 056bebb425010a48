// Terminates workers/busy-callback.js while its allocate callback runs, then prints 'terminated'.
import { Worker } from 'node:worker_threads';
// Loaded on this thread too, so that the worker's exit unloads neither addon.
import '@rmmjs/callback';

const worker = new Worker(new URL('../workers/busy-callback.js', import.meta.url));
await new Promise((resolve) => worker.once('message', resolve));
await worker.terminate();
console.log('terminated');
