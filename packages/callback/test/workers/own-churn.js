// 200 buffers filled with workerData.seed's values through a CallbackMemoryResource of this
// worker's own, each read back and freed. Answers [buffers intact, callbacks run].
import { DeviceBuffer, getCurrentDeviceResource } from '@rmmjs/core';
import { CallbackMemoryResource } from '@rmmjs/callback';
import { answer } from '@rmmjs/test-helpers/worker';
import { workerData } from 'node:worker_threads';

/** @type {{ seed: number }} */
const { seed } = workerData;

await answer(() => {
  const base = getCurrentDeviceResource();
  let calls = 0;
  const mr = new CallbackMemoryResource(
    (n, s) => {
      calls++;
      return base.allocate(n, s);
    },
    (p, n, s) => {
      calls++;
      base.deallocate(p, n, s);
    },
  );
  let ok = 0;
  for (let i = 0; i < 200; i++) {
    const data = new Uint8Array(1000 + i).fill((seed * 31 + i) & 0xff);
    const buffer = new DeviceBuffer({ data, mr });
    if (buffer.toBytes().every((b) => b === data[0])) ok++;
    buffer.free();
  }
  return [ok, calls];
});
