// Allocates 300 and 700 bytes of the current device resource and leaves them live: they are the answer.
import { getCurrentDeviceResource } from '@rmmjs/core';
import { answer } from '@rmmjs/test-helpers/worker';

await answer(() => {
  const mr = getCurrentDeviceResource();
  return [mr.allocate(300), mr.allocate(700)];
});
