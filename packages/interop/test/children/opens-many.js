// Opens each IPC handle of its first argument (a JSON array): prints the open mappings, how far the
// third view's pointer is from the first's and each view's byte 699; then frees them and prints
// the mappings left.
import { openIpcHandle, openIpcMappings } from '@rmmjs/interop';

/** @type {import('@rmmjs/interop').IpcHandle[]} */
const handles = JSON.parse(/** @type {string} */ (process.argv[2]));
const views = handles.map((handle) => openIpcHandle(handle));
const [first, , third] = views;
console.log(openIpcMappings(), String(third.ptr - first.ptr), views.map((view) => view.toBytes()[699]).join(','));
for (const view of views) view.free();
console.log(openIpcMappings());
