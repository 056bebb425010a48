// Claims the buffers of workerData.tokens (filled with 7s), made through the shared tracker
// workerData.mr, and frees them. Answers [size, through the tracker, bytes intact] of each.
import { DeviceBuffer, DeviceMemoryResource } from '@rmmjs/core';
import '@rmmjs/tracking'; // so that the tracker comes as its class
import { answer } from '@rmmjs/test-helpers/worker';
import { workerData } from 'node:worker_threads';

/** @type {{ mr: import('@rmmjs/core').SharedResourceToken, tokens: import('@rmmjs/core').TransferredBufferToken[] }} */
const { mr: token, tokens } = workerData;

await answer(() => {
  const mr = DeviceMemoryResource.fromShared(token);
  return tokens.map((transferred) => {
    const buffer = DeviceBuffer.fromTransferred(transferred);
    const seen = [buffer.size, buffer.mr === mr, buffer.toBytes().every((byte) => byte === 7)];
    buffer.free();
    return seen;
  });
});
