// Through the current device resource (a PrefetchResourceAdaptor): 40 allocations of whole 2 MiB
// pages, each one's last prefetch location read; every other one kept. Answers the class, the
// kept blocks (pointers as strings) and the locations.
import { cuda, getCurrentDeviceResource } from '@rmmjs/core';
import '@rmmjs/prefetch'; // so that the current resource comes as its class
import { answer } from '@rmmjs/test-helpers/worker';

await answer(() => {
  const mr = getCurrentDeviceResource();
  /** @type {[string, number][]} */
  const kept = [];
  const locations = [];
  for (let j = 0; j < 40; j++) {
    // Whole 2 MiB pages: small managed allocations share pages, and a page's prefetch
    // location is changed by whatever another thread does to its neighbours.
    const nbytes = 2 << 20;
    const ptr = mr.allocate(nbytes);
    cuda.synchronize();
    locations.push(cuda.lastPrefetchLocation(ptr, nbytes));
    if (j % 2 === 0) mr.deallocate(ptr, nbytes);
    else kept.push([ptr.toString(), nbytes]);
  }
  return { className: mr.constructor.name, kept, locations };
});
