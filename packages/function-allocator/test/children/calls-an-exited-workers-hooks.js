// Takes the torch hooks' addresses from a worker (test/workers/posts-hooks.js) and, once it has
// exited, allocates 4096 bytes through them and frees them: prints, as JSON, the worker's exit
// code and whether the allocation succeeded.
import { Worker } from 'node:worker_threads';
import { allocatorHookConsumer as consumer } from '@rmmjs/test-addon';

const worker = new Worker(new URL('../workers/posts-hooks.js', import.meta.url));
// Both listeners at once: 'exit' may be emitted in the same turn that delivers the message.
/** @type {Promise<[bigint, bigint]>} */
const message = new Promise((resolve) => worker.once('message', resolve));
const exited = new Promise((resolve) => worker.once('exit', resolve));
const [alloc, free] = await message;
const exitCode = await exited;
const ptr = consumer.torchAlloc(alloc, 4096, 0, 0n);
consumer.torchFree(free, ptr, 4096, 0, 0n);
console.log(JSON.stringify({ exitCode, allocated: ptr !== 0n }));
