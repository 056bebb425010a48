// Two buffers from rmmAllocator() in this worker, over the current device resource (the main
// thread's TrackingResourceAdaptor). Answers [bytes the tracker counted, bytes once they are freed].
import { getCurrentDeviceResource } from '@rmmjs/core';
import { rmmAllocator } from '@rmmjs/function-allocator';
import { TrackingResourceAdaptor } from '@rmmjs/tracking';
import { answer } from '@rmmjs/test-helpers/worker';

await answer(() => {
  const tracker = /** @type {TrackingResourceAdaptor} */ (getCurrentDeviceResource());
  const buffers = [rmmAllocator(300), rmmAllocator(700)];
  const counted = tracker.getAllocatedBytes();
  for (const buffer of buffers) buffer.free();
  return [counted, tracker.getAllocatedBytes()];
});
