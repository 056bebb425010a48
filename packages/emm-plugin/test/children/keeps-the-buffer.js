// 4096 bytes from memalloc, over a tracker made current, dropped while a view of them lives, then
// the view dropped too (node --expose-gc): prints the bytes the tracker counts after each collection.
import { getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { RMMExternalMemoryManager } from '@rmmjs/emm-plugin';
import { TrackingResourceAdaptor } from '@rmmjs/tracking';
import { collect } from '@rmmjs/test-helpers/child';

const tracker = new TrackingResourceAdaptor(getCurrentDeviceResource());
setCurrentDeviceResource(tracker);
const manager = new RMMExternalMemoryManager();
/** @type {import('@rmmjs/emm-plugin').MemoryPointer | undefined} */
let memory = manager.memalloc(4096);
/** @type {import('@rmmjs/emm-plugin').MemoryPointer | undefined} */
let view = memory.view(1024);
memory = undefined;
await collect();
const whileViewed = tracker.getAllocatedBytes();
view = undefined;
await collect();
console.log(whileViewed, tracker.getAllocatedBytes());
