// Frees the 10 KiB blocks workerData.blocks of the current device resource (allocated by the main thread).
import { getCurrentDeviceResource } from '@rmmjs/core';
import { KiB } from '@rmmjs/test-helpers/bytes';
import { answer } from '@rmmjs/test-helpers/worker';
import { workerData } from 'node:worker_threads';

/** @type {{ blocks: bigint[] }} */
const { blocks } = workerData;

await answer(() => {
  const mr = getCurrentDeviceResource();
  for (const ptr of blocks) mr.deallocate(ptr, 10 * KiB);
});
