// A CallbackMemoryResource made here: a buffer through it, and one whose allocate throws. Answers
// the sizes its callback saw, the bytes read back, and whether the error thrown was the same object.
import { DeviceBuffer, getCurrentDeviceResource } from '@rmmjs/core';
import { CallbackMemoryResource } from '@rmmjs/callback';
import { answer } from '@rmmjs/test-helpers/worker';

await answer(() => {
  const base = getCurrentDeviceResource();
  /** @type {number[]} */
  const calls = [];
  const mr = new CallbackMemoryResource(
    (n, s) => {
      calls.push(n);
      return base.allocate(n, s);
    },
    (p, n, s) => base.deallocate(p, n, s),
  );
  const buffer = new DeviceBuffer({ data: new Uint8Array([5, 6, 7]), mr });
  const bytes = [...buffer.toBytes()];
  buffer.free();
  const error = new Error('from the worker');
  const failing = new CallbackMemoryResource(
    () => {
      throw error;
    },
    () => {},
  );
  let same = false;
  try {
    new DeviceBuffer({ size: 10, mr: failing });
  } catch (caught) {
    same = caught === error;
  }
  return [calls, bytes, same];
});
