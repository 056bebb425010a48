// 200 buffers filled with workerData.seed's values through the current device resource, each read
// back and freed. Answers how many kept their bytes.
import { DeviceBuffer } from '@rmmjs/core';
import { answer } from '@rmmjs/test-helpers/worker';
import { workerData } from 'node:worker_threads';

/** @type {{ seed: number }} */
const { seed } = workerData;

await answer(() => {
  let ok = 0;
  for (let i = 0; i < 200; i++) {
    const data = new Uint8Array(1000 + i).fill((seed * 31 + i) & 0xff);
    const buffer = new DeviceBuffer({ data });
    if (buffer.toBytes().every((b) => b === data[0])) ok++;
    buffer.free();
  }
  return ok;
});
