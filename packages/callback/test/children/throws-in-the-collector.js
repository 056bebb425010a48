// A DeviceBuffer whose deallocate callback throws, left to the collector (node --expose-gc; core
// logs the failure to stderr); then errors of later calls, which must be their own. Prints the
// bytes the failed deallocation leaked (freed here), whether a later allocate's throw reached its
// caller as the same error, and the class of a callback resource's refusal of a null pointer.
import { DeviceBuffer, getCurrentDeviceResource } from '@rmmjs/core';
import { CallbackMemoryResource } from '@rmmjs/callback';
import { collect } from '@rmmjs/test-helpers/child';

const base = getCurrentDeviceResource();
/** @type {[bigint, number] | undefined} */
let leaked;
const mr = new CallbackMemoryResource(
  (n, s) => base.allocate(n, s),
  (p, n) => {
    leaked = [p, n];
    throw new Error('deallocate failed in the collector');
  },
);
(() => {
  new DeviceBuffer({ size: 2048, mr });
})();
await collect();
const later = new Error('later');
const failing = new CallbackMemoryResource(
  () => {
    throw later;
  },
  () => {},
);
let same = false;
try {
  failing.allocate(10);
} catch (error) {
  same = error === later;
}
let oom;
try {
  new CallbackMemoryResource(
    () => 0n,
    () => {},
  ).allocate(10);
} catch (error) {
  oom = /** @type {object} */ (error).constructor.name;
}
const [ptr, bytes] = /** @type {[bigint, number]} */ (leaked);
base.deallocate(ptr, bytes);
console.log(bytes, same, oom);
