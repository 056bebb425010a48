// Claims the buffers of workerData.transfers through the shared resource (workerData.token),
// checks what each holds and frees it; answers what it saw of each.
import { workerData } from 'node:worker_threads';
import { equalBytes } from '../../bytes.js';
import { answer } from '../../worker.js';
import { fillPattern } from '../common.js';
import { core } from './imports.js';

/**
 * @type {{
 *   token: import('@rmmjs/core').SharedResourceToken,
 *   transfers: { token: import('@rmmjs/core').TransferredBufferToken, size: number, onStream: boolean }[],
 *   seed: number,
 * }}
 */
const { token, transfers, seed } = workerData;

await answer(() => {
  const mr = core.DeviceMemoryResource.fromShared(token);
  return transfers.map(({ token, size, onStream }, i) => {
    const buffer = core.DeviceBuffer.fromTransferred(token);
    const seen = {
      size: buffer.size,
      capacityFits: buffer.capacity() >= size,
      sameResource: buffer.mr === mr,
      streamKept: buffer.stream.isDefault() === !onStream,
      intact: equalBytes(buffer.toBytes(), fillPattern(size, seed + i)),
    };
    buffer.stream[Symbol.dispose]();
    buffer.free();
    return seen;
  });
});
