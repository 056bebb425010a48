// Runs workers/leaves-buffers.js (two buffers of its own callback resource left unfreed) until it
// exits, then prints 'exited'.
import { Worker } from 'node:worker_threads';
// Loaded on this thread too, so that the worker's exit unloads neither addon.
import '@rmmjs/callback';

const worker = new Worker(new URL('../workers/leaves-buffers.js', import.meta.url));
await new Promise((resolve) => worker.once('exit', resolve));
console.log('exited');
