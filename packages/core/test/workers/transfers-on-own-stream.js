// A buffer of 64 bytes on a stream of this worker's, the Stream object disposed: answers the
// buffer's transfer() token (the buffer holds the stream).
import { DeviceBuffer, Stream } from '@rmmjs/core';
import { answer } from '@rmmjs/test-helpers/worker';

await answer(() => {
  const stream = new Stream();
  const buffer = new DeviceBuffer({ size: 64, stream });
  stream[Symbol.dispose]();
  return buffer.transfer();
});
