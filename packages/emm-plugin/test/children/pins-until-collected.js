// A 1 MiB SharedArrayBuffer pinned by mempin, its memory then left to the collector (node --expose-gc):
// prints, as JSON, the fake driver's live registrations and whether the owner lives while pinned,
// then the registrations once the memory was collected.
import { RMMExternalMemoryManager } from '@rmmjs/emm-plugin';
import { fakeCuda } from '@rmmjs/test-helpers';
import { collect } from '@rmmjs/test-helpers/child';

const manager = new RMMExternalMemoryManager();
/** @type {ReturnType<RMMExternalMemoryManager['mempin']> | undefined} */
let memory = manager.mempin(new SharedArrayBuffer(1 << 20));
const owner = new WeakRef(/** @type {object} */ (memory.hostOwner));
await collect();
const pinned = [fakeCuda.stats().liveRegistrations, owner.deref() !== undefined];
memory = undefined;
await collect();
console.log(JSON.stringify([...pinned, fakeCuda.stats().liveRegistrations]));
