// The current device resource the main thread set: a buffer of three bytes through it. Answers
// its class and the bytes read back.
import { DeviceBuffer, getCurrentDeviceResource } from '@rmmjs/core';
import { answer } from '@rmmjs/test-helpers/worker';

await answer(() => {
  const mr = getCurrentDeviceResource();
  const buffer = new DeviceBuffer({ data: new Uint8Array([1, 2, 3]) });
  const bytes = [...buffer.toBytes()];
  buffer.free();
  return [mr.constructor.name, bytes];
});
