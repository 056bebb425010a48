// Started by a child process (not by runWorker): holds the current device resource, says
// "holding", and on the next message disposes it and says "released".
import { getCurrentDeviceResource } from '@rmmjs/core';
import { parentPort } from 'node:worker_threads';

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);
const mr = getCurrentDeviceResource();
port.postMessage('holding');
port.once('message', () => {
  mr[Symbol.dispose]();
  port.postMessage('released');
});
