// Waits at the start (workerData.flags: [arrived, go]) with the other workers, then asks for 1 PiB.
// Answers the error's class and code ('allocated' if there was none).
import { DeviceBuffer } from '@rmmjs/core';
import { answer } from '@rmmjs/test-helpers/worker';
import { workerData } from 'node:worker_threads';

/** @type {{ flags: SharedArrayBuffer }} */
const { flags: shared } = workerData;

await answer(() => {
  const flags = new Int32Array(shared);
  Atomics.add(flags, 0, 1);
  Atomics.wait(flags, 1, 0);
  try {
    new DeviceBuffer({ size: 2 ** 50 });
    return 'allocated';
  } catch (error) {
    return `${/** @type {object} */ (error).constructor.name} ${/** @type {{ code: string }} */ (error).code}`;
  }
});
