// Allocates 1000 bytes and 3 MiB of the current device resource and leaves them live (they are
// the answer), with one 5000-byte block allocated and freed in between.
import { getCurrentDeviceResource } from '@rmmjs/core';
import { MiB } from '@rmmjs/test-helpers/bytes';
import { answer } from '@rmmjs/test-helpers/worker';

await answer(() => {
  const mr = getCurrentDeviceResource();
  const a = mr.allocate(1000);
  const b = mr.allocate(3 * MiB);
  mr.deallocate(mr.allocate(5000), 5000);
  return [a, b];
});
