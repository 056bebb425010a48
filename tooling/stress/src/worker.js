// A worker thread running Workloads over the current device resource (the process-wide one the
// main thread set). A run's options: the Workload's, plus `steps` (or `forever`: until the worker
// is terminated), `until` (a Date.now() after which it stops) and `progressEvery` (post
// { progress } every so many steps). A run ends with { done: counts, resource: the current
// resource's class name } after the workload closed, or { error, code }.
// workerData is one run's options; or { serve: true }: then every message is a run's options and
// gets its answer, until the worker is terminated.
import { parentPort, workerData } from 'node:worker_threads';
import { getCurrentDeviceResource } from '@rmmjs/core';
import { Workload } from './workload.js';

async function run({ steps = 0, forever = false, until = Infinity, progressEvery = 0, ...options }) {
  let workload;
  try {
    workload = new Workload(options);
    for (let i = 0; (forever || i < steps) && Date.now() < until; i++) {
      await workload.step();
      if (progressEvery > 0 && (i + 1) % progressEvery === 0) parentPort.postMessage({ progress: i + 1 });
    }
    workload.close();
    return { done: workload.counts, resource: currentResourceName() };
  } catch (error) {
    // Its buffers go back first, so that the failure is reported once and not again as memory
    // still held when the caller checks the resource.
    let closing = '';
    try {
      workload?.close();
    } catch (again) {
      closing = `\nthen, freeing its buffers: ${again?.stack ?? again}`;
    }
    return { error: String(error?.stack ?? error) + closing, code: error?.code };
  }
}

// Its class as this thread sees it; the wrapper is disposed at once, so that this thread holds
// no reference to the resource between runs.
function currentResourceName() {
  const mr = getCurrentDeviceResource();
  const name = mr.constructor.name;
  mr[Symbol.dispose]();
  return name;
}

if (workerData.serve) {
  await import('./stacks.js'); // loads every layer's package, so that resources are wrapped as their classes
  parentPort.on('message', async (options) => parentPort.postMessage(await run(options)));
  parentPort.postMessage({ ready: true });
} else {
  parentPort.postMessage(await run(workerData));
}
