// Started by a child process: loads the C counting adaptor's addon (from the folder workerData, a
// URL) in this worker only, and makes one over the current device resource the current device
// resource, which outlives this worker.
import { getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { loadAddon, resourceHandle, wrapResource } from '@rmmjs/core/addon';
import { workerData } from 'node:worker_threads';

/** @type {{ create(upstream: import('@rmmjs/core/internal').ResourceHandle): import('@rmmjs/core/internal').ResourceHandle }} */
const counting = loadAddon(workerData, './rmmjs_counting_adaptor', 'counting-adaptor');
const upstream = resourceHandle(getCurrentDeviceResource(), 'upstream');
setCurrentDeviceResource(wrapResource(counting.create(upstream)));
