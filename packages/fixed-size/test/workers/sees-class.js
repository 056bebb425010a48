// The current device resource, a FixedSizeMemoryResource the main thread made, as this worker sees
// it: its class, block size, upstream's class, and the registry's type.
import { getCurrentDeviceResource, getCurrentDeviceResourceType } from '@rmmjs/core';
import { FixedSizeMemoryResource } from '@rmmjs/fixed-size';
import { answer } from '@rmmjs/test-helpers/worker';

await answer(() => {
  const mr = /** @type {FixedSizeMemoryResource} */ (getCurrentDeviceResource());
  return [
    mr instanceof FixedSizeMemoryResource,
    mr.getBlockSize(),
    mr.upstreamMr.constructor.name,
    getCurrentDeviceResourceType() === FixedSizeMemoryResource,
  ];
});
