// A CallbackMemoryResource made current here and then dropped here while workers/holds-current.js
// holds it: prints how many of its functions (the allocate callback, registered for finalization)
// were collected while the worker held it (node --expose-gc), and how many once it let go.
import { Worker } from 'node:worker_threads';
import { getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { CallbackMemoryResource } from '@rmmjs/callback';
import { collect } from '@rmmjs/test-helpers/child';

const base = getCurrentDeviceResource();
let collected = 0;
const registry = new FinalizationRegistry(() => {
  collected++;
});
const previous = (() => {
  /** @type {(n: number, s: import('@rmmjs/core').Stream) => bigint} */
  const allocate = (n, s) => base.allocate(n, s);
  registry.register(allocate, 'allocate');
  return setCurrentDeviceResource(new CallbackMemoryResource(allocate, (p, n, s) => base.deallocate(p, n, s)));
})();
const worker = new Worker(new URL('../workers/holds-current.js', import.meta.url));
const next = () => new Promise((resolve) => worker.once('message', resolve));
// Collections with time between them for the worker's release to reach this thread.
const settle = () => collect(5, 20);
await next();
setCurrentDeviceResource(previous);
await settle();
const whileHeld = collected;
worker.postMessage('release');
await next();
await settle();
console.log(whileHeld, collected);
await worker.terminate();
