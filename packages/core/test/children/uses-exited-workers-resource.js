// A worker (workers/sets-counting-adaptor.js) loads the C counting adaptor's addon, makes one the
// current device resource and exits; this thread, which never loaded the addon, then allocates
// through it, drops it (its destroy runs) and prints as JSON the worker's exit code, the
// resource's type name, whether the addon's library is still mapped and whether the bytes came back.
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { DeviceBuffer, getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { resourceHandle } from '@rmmjs/core/addon';
import { native } from '@rmmjs/core/internal';

const previous = getCurrentDeviceResource();
const worker = new Worker(new URL('../workers/sets-counting-adaptor.js', import.meta.url), {
  workerData: new URL('../../build/test-addons/', import.meta.url).href,
});
const exitCode = await new Promise((resolve) => worker.once('exit', resolve));
const mapped = () => readFileSync('/proc/self/maps', 'utf8').includes('rmmjs_counting_adaptor.node');
const mr = getCurrentDeviceResource();
const info = native.resourceInfo(resourceHandle(mr, 'mr'));
const buffer = new DeviceBuffer({ size: 1000 });
buffer.copyFromHost(new Uint8Array(1000).fill(7));
const back = buffer.toBytes();
buffer.free();
setCurrentDeviceResource(previous);
mr[Symbol.dispose]();
console.log(
  JSON.stringify({ exitCode, typeName: info.typeName, mapped: mapped(), sevens: back.every((b) => b === 7) }),
);
