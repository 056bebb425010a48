// An RMMExternalMemoryManager of this worker's over the current device resource (the main thread's
// TrackingResourceAdaptor): 4 KiB of device memory and 64 bytes of host memory, then reset().
// Answers [bytes the tracker counted, device memory freed, host memory freed, bytes after reset].
import { getCurrentDeviceResource } from '@rmmjs/core';
import { RMMExternalMemoryManager } from '@rmmjs/emm-plugin';
import { TrackingResourceAdaptor } from '@rmmjs/tracking';
import { answer } from '@rmmjs/test-helpers/worker';

await answer(() => {
  const tracker = /** @type {TrackingResourceAdaptor} */ (getCurrentDeviceResource());
  const manager = new RMMExternalMemoryManager();
  manager.initialize();
  const memory = manager.memalloc(4096);
  const host = manager.memhostalloc(64);
  host.bytes.fill(5);
  const counted = tracker.getAllocatedBytes();
  manager.reset();
  return [counted, memory.freed, host.freed, tracker.getAllocatedBytes()];
});
