// The resource from workerData.token (share()), buffers of workerData.sizes filled with patterns,
// every other one on a stream of the worker's own, each transferred; answers the tokens.
import { workerData } from 'node:worker_threads';
import { answer } from '../../worker.js';
import { fillPattern } from '../common.js';
import { core } from './imports.js';

const { token, sizes, seed } = workerData;

await answer(() => {
  const mr = core.DeviceMemoryResource.fromShared(token);
  const stream = new core.Stream();
  const transfers = sizes.map((/** @type {number} */ size, /** @type {number} */ i) => {
    const onStream = i % 2 === 1;
    const data = fillPattern(size, seed + i);
    const buffer = new core.DeviceBuffer({ data, mr, stream: onStream ? stream : undefined });
    return { token: buffer.transfer(), onStream, freed: buffer.freed };
  });
  stream[Symbol.dispose]();
  return { className: mr.constructor.name, transfers };
});
