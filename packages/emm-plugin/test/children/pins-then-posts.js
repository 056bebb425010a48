// mempin of a 4 MiB owner (argv[2]: 'array-buffer', or 'shared' for a SharedArrayBuffer), mapped;
// the owner is then posted to a worker (transferred, where it can be) that fills it with 7s and
// ends, and the device copies through the pinned range (node --expose-gc). Prints, as JSON,
// { refused: [name, code] } when mempin refuses, else { sevens: whether the device read the 7s }.
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { DeviceBuffer } from '@rmmjs/core';
import { RMMExternalMemoryManager } from '@rmmjs/emm-plugin';
import { collect } from '@rmmjs/test-helpers/child';

const size = 4 << 20;
const owner = process.argv[2] === 'shared' ? new SharedArrayBuffer(size) : new ArrayBuffer(size);
/** @type {import('@rmmjs/emm-plugin').MappedMemory} */
let memory;
try {
  memory = /** @type {any} */ (new RMMExternalMemoryManager().mempin(owner, 0, size, { mapped: true }));
} catch (error) {
  console.log(JSON.stringify({ refused: [/** @type {Error} */ (error).name, /** @type {any} */ (error).code] }));
  process.exit(0);
}
const fill = "new Uint8Array(require('node:worker_threads').workerData).fill(7)";
const transferList = owner instanceof ArrayBuffer ? [owner] : [];
await once(new Worker(fill, { eval: true, workerData: owner, transferList }), 'exit');
await collect();
const device = new DeviceBuffer({ size });
device.copyFromDevice(memory);
console.log(JSON.stringify({ sevens: device.toBytes().every((byte) => byte === 7) }));
memory.free();
