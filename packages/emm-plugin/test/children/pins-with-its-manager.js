// Mapped memory pinned by a manager that nothing keeps, then left to the collector together with
// it (node --expose-gc): prints, as JSON, the fake driver's live registrations while it lives and
// once it was collected.
import { RMMExternalMemoryManager } from '@rmmjs/emm-plugin';
import { fakeCuda } from '@rmmjs/test-helpers';
import { collect } from '@rmmjs/test-helpers/child';

/** @type {object | undefined} */
let memory = new RMMExternalMemoryManager().mempin(new SharedArrayBuffer(1 << 20), 0, 4096, { mapped: true });
await collect();
const pinned = fakeCuda.stats().liveRegistrations;
memory = undefined;
await collect();
console.log(JSON.stringify([pinned, fakeCuda.stats().liveRegistrations]));
