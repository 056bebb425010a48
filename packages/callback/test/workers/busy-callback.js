// Started by a child process: allocates through a CallbackMemoryResource whose allocate says
// "inside" and then keeps the thread busy for 300 ms (the child terminates this worker meanwhile).
import { DeviceBuffer, getCurrentDeviceResource } from '@rmmjs/core';
import { CallbackMemoryResource } from '@rmmjs/callback';
import { parentPort } from 'node:worker_threads';

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);
const base = getCurrentDeviceResource();
const mr = new CallbackMemoryResource(
  (n, s) => {
    port.postMessage('inside');
    for (const start = Date.now(); Date.now() - start < 300;);
    return base.allocate(n, s);
  },
  (p, n, s) => base.deallocate(p, n, s),
);
new DeviceBuffer({ size: 100, mr });
