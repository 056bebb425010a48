// A CallbackMemoryResource reachable only from ten buffers left to the collector (node
// --expose-gc): prints how many deallocations ran and how many of its functions (the deallocate
// callback, registered for finalization) were collected after them.
import { DeviceBuffer, getCurrentDeviceResource } from '@rmmjs/core';
import { CallbackMemoryResource } from '@rmmjs/callback';
import { collect } from '@rmmjs/test-helpers/child';

const base = getCurrentDeviceResource();
let collected = 0;
const registry = new FinalizationRegistry(() => {
  collected++;
});
let freed = 0;
(() => {
  /** @type {(p: bigint, n: number, s: import('@rmmjs/core').Stream) => void} */
  const deallocate = (p, n, s) => {
    freed++;
    base.deallocate(p, n, s);
  };
  registry.register(deallocate, 'deallocate');
  const mr = new CallbackMemoryResource((n, s) => base.allocate(n, s), deallocate);
  for (let i = 0; i < 10; i++) new DeviceBuffer({ size: 1000, mr });
})();
await collect();
await collect();
console.log(freed, collected);
