// Started with new Worker (the test terminates it): allocates three MiB blocks from the shared pool
// workerData and frees them into this thread's cache, posts their pointers and waits until terminated.
import { DeviceMemoryResource } from '@rmmjs/core';
import { MiB } from '@rmmjs/test-helpers/bytes';
import { parentPort, workerData } from 'node:worker_threads';

const mr = DeviceMemoryResource.fromShared(workerData);
const blocks = [0, 1, 2].map(() => mr.allocate(MiB));
for (const ptr of blocks) mr.deallocate(ptr, MiB);
/** @type {import('node:worker_threads').MessagePort} */ (parentPort).postMessage(blocks);
for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
