// RMM's async_deallocate_loop: frees each block the main thread publishes, on a stream of its own,
// as it appears; then allocates 8 blocks of workerData.size for the main thread to free (their
// pointers are the answer).
import { workerData } from 'node:worker_threads';
import { answer } from '../../worker.js';
import { FIRST_BLOCK, PUBLISHED, READY, waitFor } from '../common.js';
import { core } from './imports.js';

const { count, size } = workerData;
const slots = new BigInt64Array(workerData.slots);

await answer(() => {
  const mr = core.getCurrentDeviceResource();
  const stream = new core.Stream();
  try {
    Atomics.add(slots, READY, 1n);
    for (let i = 0; i < count; i++) {
      waitFor(slots, PUBLISHED, (published) => published > BigInt(i));
      mr.deallocate(slots[FIRST_BLOCK + 2 * i], Number(slots[FIRST_BLOCK + 2 * i + 1]), stream);
    }
    const theirs = Array.from({ length: 8 }, () => mr.allocate(size, stream));
    stream.synchronize();
    return theirs;
  } finally {
    stream[Symbol.dispose]();
  }
});
