// Makes a FailureCallbackResourceAdaptor of this worker's (over a 4 KiB limiter, its callback
// always retrying) the current device resource and exits with it still current.
import { getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { FailureCallbackResourceAdaptor } from '@rmmjs/failure-callback';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { answer } from '@rmmjs/test-helpers/worker';

await answer(() => {
  const limited = new LimitingResourceAdaptor(getCurrentDeviceResource(), 4096);
  setCurrentDeviceResource(new FailureCallbackResourceAdaptor(limited, () => true));
});
