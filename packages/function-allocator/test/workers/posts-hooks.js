// Started by a child process: posts the torch allocate and free hooks' addresses, then exits
// (unloading this thread's copy of the addon).
import { allocatorHooks } from '@rmmjs/function-allocator';
import { parentPort } from 'node:worker_threads';

/** @type {import('node:worker_threads').MessagePort} */ (parentPort).postMessage([
  allocatorHooks.torch.alloc.address,
  allocatorHooks.torch.free.address,
]);
