// The current device resource, the main thread's FailureCallbackResourceAdaptor over a 4 KiB
// limiter (with @rmmjs/failure-callback imported when workerData.imports says so): a buffer of 3
// bytes, then one of 8 KiB. Answers the class, the bytes read back, and [is OutOfMemoryError,
// code, message] of the failure.
import { DeviceBuffer, OutOfMemoryError, getCurrentDeviceResource } from '@rmmjs/core';
import { answer } from '@rmmjs/test-helpers/worker';
import { workerData } from 'node:worker_threads';

/** @type {{ imports: boolean }} */
const { imports } = workerData;
if (imports) await import('@rmmjs/failure-callback');

await answer(() => {
  const mr = getCurrentDeviceResource();
  const buffer = new DeviceBuffer({ data: new Uint8Array([1, 2, 3]) });
  const bytes = [...buffer.toBytes()];
  buffer.free();
  let failure;
  try {
    new DeviceBuffer({ size: 8192 });
  } catch (error) {
    const { code, message } = /** @type {OutOfMemoryError} */ (error);
    failure = [error instanceof OutOfMemoryError, code, message];
  }
  return [mr.constructor.name, bytes, failure];
});
