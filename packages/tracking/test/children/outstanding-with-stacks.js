// logOutstandingAllocations() at debug of a tracker that captures stacks, with one allocation made
// in allocatedForTheLog(), into the debug log (flushed at the end).
import { getCurrentDeviceResource } from '@rmmjs/core';
import { native } from '@rmmjs/core/internal';
import { TrackingResourceAdaptor } from '@rmmjs/tracking';

const mr = new TrackingResourceAdaptor(getCurrentDeviceResource(), { captureStacks: true });
function allocatedForTheLog() {
  return mr.allocate(10);
}
const ptr = allocatedForTheLog();
native.setLogLevel(1);
mr.logOutstandingAllocations();
mr.deallocate(ptr, 10);
native.flushLog();
