// Says "ready"; then claims each buffer the main thread transfers here, adds 1 to its first byte
// and transfers it back (until terminated).
import { DeviceBuffer } from '@rmmjs/core';
import { parentPort } from 'node:worker_threads';

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);
port.on('message', (token) => {
  const buffer = DeviceBuffer.fromTransferred(token);
  buffer.copyFromHost(new Uint8Array([buffer.toBytes()[0] + 1]));
  port.postMessage(buffer.transfer());
});
port.postMessage('ready');
