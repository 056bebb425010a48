// Started by a child process: frees a buffer of a CallbackMemoryResource whose deallocate says
// "inside free" and never returns (the child terminates this worker there).
import { DeviceBuffer, getCurrentDeviceResource } from '@rmmjs/core';
import { CallbackMemoryResource } from '@rmmjs/callback';
import { parentPort } from 'node:worker_threads';

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);
const base = getCurrentDeviceResource();
const mr = new CallbackMemoryResource(
  (n, s) => base.allocate(n, s),
  () => {
    port.postMessage('inside free');
    for (;;);
  },
);
const buffers = Array.from({ length: 4 }, () => new DeviceBuffer({ size: 1000, mr }));
buffers[0].free();
