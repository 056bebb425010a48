// Says "ready", then makes and disposes streams for ever, with an asynchronous copy or wait on
// each (until terminated, at any moment of it).
import { DeviceBuffer, PER_THREAD_DEFAULT_STREAM, Stream } from '@rmmjs/core';
import { parentPort } from 'node:worker_threads';

const buffer = new DeviceBuffer({ size: 64 });
const host = new Uint8Array(64);
/** @type {import('node:worker_threads').MessagePort} */ (parentPort).postMessage('ready');
for (let i = 0; ; i++) {
  const stream = new Stream();
  if (i % 2 === 0) buffer.copyFromHostAsync(host, stream).catch(() => {});
  else PER_THREAD_DEFAULT_STREAM.synchronizeAsync().catch(() => {});
  stream[Symbol.dispose]();
}
