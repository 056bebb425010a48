// Through the current device resource (a TrackingResourceAdaptor that captures stacks): 200
// allocations of sizes that say which worker (workerData.worker) made them, every other one freed.
// With workerData.withTracking it imports @rmmjs/tracking (JavaScript stacks); without, only core
// (native frames). Answers the blocks kept (pointers as strings) and the resource's class.
import { getCurrentDeviceResource } from '@rmmjs/core';
import { answer } from '@rmmjs/test-helpers/worker';
import { workerData } from 'node:worker_threads';

/** @type {{ worker: 1 | 2 | 3 | 4, withTracking: boolean }} */
const { worker, withTracking } = workerData;
if (withTracking) await import('@rmmjs/tracking');
const mr = getCurrentDeviceResource();

// A function of each worker's own name, for the stacks the tracker captures.
const allocators = {
  1: function workerAllocates1(/** @type {number} */ nbytes) {
    return mr.allocate(nbytes);
  },
  2: function workerAllocates2(/** @type {number} */ nbytes) {
    return mr.allocate(nbytes);
  },
  3: function workerAllocates3(/** @type {number} */ nbytes) {
    return mr.allocate(nbytes);
  },
  4: function workerAllocates4(/** @type {number} */ nbytes) {
    return mr.allocate(nbytes);
  },
};

await answer(() => {
  const allocate = allocators[worker];
  /** @type {[string, number][]} */
  const kept = [];
  for (let j = 0; j < 200; j++) {
    const nbytes = 1000 + 7 * worker + j;
    const ptr = allocate(nbytes);
    if (j % 2 === 0) mr.deallocate(ptr, nbytes);
    else kept.push([ptr.toString(), nbytes]);
  }
  return { kept, className: mr.constructor.name };
});
