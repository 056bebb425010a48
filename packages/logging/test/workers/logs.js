// 100 buffers (100 to 199 bytes) allocated and freed through the current device resource, a
// LoggingResourceAdaptor of the main thread. Answers whether it came as its class, and its file.
import { DeviceBuffer, getCurrentDeviceResource } from '@rmmjs/core';
import { LoggingResourceAdaptor } from '@rmmjs/logging';
import { answer } from '@rmmjs/test-helpers/worker';

await answer(() => {
  const mr = /** @type {LoggingResourceAdaptor} */ (getCurrentDeviceResource());
  const buffers = [];
  for (let i = 0; i < 100; i++) buffers.push(new DeviceBuffer({ size: 100 + i }));
  for (const buffer of buffers) buffer.free();
  return [mr instanceof LoggingResourceAdaptor, mr.getFileName()];
});
