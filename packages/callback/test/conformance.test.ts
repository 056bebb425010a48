// CallbackMemoryResource (over the current device resource) through the shared conformance suite
// (RMM's mr_ref_test).
import { getCurrentDeviceResource } from '@rmmjs/core';
import { CallbackMemoryResource } from '@rmmjs/callback';
import { describeConformance } from '@rmmjs/test-helpers';

function overCurrentResource(): CallbackMemoryResource {
  const base = getCurrentDeviceResource();
  return new CallbackMemoryResource(
    (nbytes, stream) => base.allocate(nbytes, stream),
    (ptr, nbytes, stream) => base.deallocate(ptr, nbytes, stream),
  );
}

describeConformance('CallbackMemoryResource', overCurrentResource, {
  // Where the functions' memory lives is unknown, so it says both.
  hostAccessible: true,
  cannot: {
    workers:
      'its functions run only on the thread that made it: other threads get ERR_RMM_WRONG_THREAD (threads.test.ts)',
    transfer: 'its buffers cannot leave the thread that made it: transfer() is ERR_RMM_WRONG_THREAD (threads.test.ts)',
  },
});
