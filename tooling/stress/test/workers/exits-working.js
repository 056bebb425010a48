// Started by a child process: starts the work in flight (startWork(workerData.bigBytes)), says
// "started", then ends as workerData.ending says: 'exit' (process.exit(5)), 'end' (the module
// ends), 'stay' (until terminated), 'throw' (an uncaught exception) or 'churn' (allocates for ever).
import { DeviceBuffer } from '@rmmjs/core';
import { parentPort, workerData } from 'node:worker_threads';
import { startWork } from './start-work.js';

/** @type {{ bigBytes: number, ending: 'exit' | 'end' | 'stay' | 'throw' | 'churn' }} */
const { bigBytes, ending } = workerData;

const endings = {
  exit: () => process.exit(5),
  end: () => {},
  stay: () => setInterval(() => {}, 1000),
  throw: () =>
    setTimeout(() => {
      throw new Error('worker boom');
    }, 1),
  churn: () => {
    for (;;) new DeviceBuffer({ size: 4096 }).free();
  },
};

startWork(bigBytes);
/** @type {import('node:worker_threads').MessagePort} */ (parentPort).postMessage('started');
endings[ending]();
