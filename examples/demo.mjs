// The rmmjs demo: what this machine has, then memory through the current device resource.
// Runs with a GPU or without one (host mode).
import { cuda, DeviceBuffer, getCurrentDeviceResource, Stream, availableDeviceMemory } from '@rmmjs/core';

const gpu = cuda.isAvailable();
console.log(
  gpu
    ? `rmmjs: ${cuda.getDeviceCount()} GPU(s), device 0 is ${cuda.deviceName(0)}, driver CUDA ${cuda.driverVersion() / 1000}`
    : `rmmjs: host mode (${cuda.hostModeReason()})`,
);
const [free, total] = availableDeviceMemory();
console.log(`memory: ${(free / 2 ** 30).toFixed(1)} GiB free of ${(total / 2 ** 30).toFixed(1)} GiB`);

const mr = getCurrentDeviceResource();
console.log(`current device resource: ${mr.constructor.name}`);

const stream = new Stream();
const text = new TextEncoder().encode('hello from device memory');
const buffer = DeviceBuffer.toDevice(text, stream);
const copy = buffer.copy();
console.log(
  `buffer: ${buffer.size} bytes at 0x${buffer.ptr.toString(16)}; copy says "${new TextDecoder().decode(copy.toBytes())}"`,
);

const big = new DeviceBuffer({ size: 64 << 20 });
const started = process.hrtime.bigint();
const host = await big.copyToHostAsync();
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
console.log(
  `copied ${host.length >> 20} MiB device -> host in ${(seconds * 1000).toFixed(1)} ms without blocking the event loop`,
);

for (const b of [buffer, copy, big]) b.free();
stream[Symbol.dispose]();
console.log('done');
