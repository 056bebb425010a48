// Makes the current device resource a CallbackMemoryResource that throws an OutOfMemoryError of
// this worker's and says "published"; on the next message (the main thread has put an adaptor
// over it) allocates through the current resource and says [its class, the same error came back].
import { DeviceBuffer, OutOfMemoryError, getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { CallbackMemoryResource } from '@rmmjs/callback';
import { parentPort } from 'node:worker_threads';

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);
const error = new OutOfMemoryError('thrown in the worker');
setCurrentDeviceResource(
  new CallbackMemoryResource(
    () => {
      throw error;
    },
    () => {},
  ),
);
port.postMessage('published');
port.once('message', () => {
  const mr = getCurrentDeviceResource();
  let same = false;
  try {
    new DeviceBuffer({ size: 100 });
  } catch (caught) {
    same = caught === error;
  }
  port.postMessage([mr.constructor.name, same]);
});
