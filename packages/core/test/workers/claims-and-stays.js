// Claims the second of the transferred buffers of workerData, says "claimed", and stays (until terminated).
import { DeviceBuffer } from '@rmmjs/core';
import { parentPort, workerData } from 'node:worker_threads';

/** @type {import('@rmmjs/core').TransferredBufferToken[]} */
const tokens = workerData;
DeviceBuffer.fromTransferred(tokens[1]);
/** @type {import('node:worker_threads').MessagePort} */ (parentPort).postMessage('claimed');
setInterval(() => {}, 1000);
