// cuda.lastPrefetchLocation of workerData.ptr (4096 bytes) from a fresh thread, with no context current yet.
import { cuda } from '@rmmjs/core';
import { answer } from '@rmmjs/test-helpers/worker';
import { workerData } from 'node:worker_threads';

/** @type {{ ptr: bigint }} */
const { ptr } = workerData;

await answer(() => cuda.lastPrefetchLocation(ptr, 4096));
