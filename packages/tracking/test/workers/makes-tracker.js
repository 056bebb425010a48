// A TrackingResourceAdaptor made here, over the current device resource and made current, with one
// allocation of 1234 bytes left live for the main thread (its pointer, as a string, is the answer).
import { getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { TrackingResourceAdaptor } from '@rmmjs/tracking';
import { answer } from '@rmmjs/test-helpers/worker';

await answer(() => {
  const mr = new TrackingResourceAdaptor(getCurrentDeviceResource(), { captureStacks: true });
  setCurrentDeviceResource(mr);
  function allocatedInTheWorker() {
    return mr.allocate(1234);
  }
  return allocatedInTheWorker().toString();
});
