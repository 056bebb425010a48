// A DeviceBuffer of a CallbackMemoryResource, left to the collector (node --expose-gc): prints, as
// JSON, each callback's call [operation, bytes, on the default stream, the pointer the allocation
// returned].
import { DEFAULT_STREAM, DeviceBuffer, getCurrentDeviceResource } from '@rmmjs/core';
import { CallbackMemoryResource } from '@rmmjs/callback';
import { collect } from '@rmmjs/test-helpers/child';

const base = getCurrentDeviceResource();
/** @type {[string, number, boolean, bigint][]} */
const calls = [];
const mr = new CallbackMemoryResource(
  (n, s) => {
    const p = base.allocate(n, s);
    calls.push(['allocate', n, s === DEFAULT_STREAM, p]);
    return p;
  },
  (p, n, s) => {
    calls.push(['deallocate', n, s === DEFAULT_STREAM, p]);
    base.deallocate(p, n, s);
  },
);
(() => {
  new DeviceBuffer({ size: 4096, mr });
})();
await collect();
const allocated = calls[0]?.[3];
console.log(JSON.stringify(calls.map(([op, n, d, p]) => [op, n, d, p === allocated])));
