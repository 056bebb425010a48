// One 32 KiB block of the current device resource allocated and freed on a stream of this thread's own.
import { Stream, getCurrentDeviceResource } from '@rmmjs/core';
import { KiB } from '@rmmjs/test-helpers/bytes';
import { answer } from '@rmmjs/test-helpers/worker';

await answer(() => {
  const mr = getCurrentDeviceResource();
  const stream = new Stream();
  const ptr = mr.allocate(32 * KiB, stream);
  mr.deallocate(ptr, 32 * KiB, stream);
  stream[Symbol.dispose]();
});
