// Opens the IPC handle of its first argument (JSON) twice: prints the view's size, whether both
// views share a pointer, the open mappings and the view's device; its first and last bytes; then
// writes [1, 2, 3] at its start, frees both views (and the first again) and prints the mappings
// left and the second free's error code.
import { openIpcHandle, openIpcMappings } from '@rmmjs/interop';

const handle = JSON.parse(/** @type {string} */ (process.argv[2]));
const view = openIpcHandle(handle);
const bytes = view.toBytes();
const same = openIpcHandle(handle);
console.log(view.size, view.ptr === same.ptr, openIpcMappings(), view.device);
console.log(bytes[0], bytes[view.size - 1]);
view.copyFromHost(new Uint8Array([1, 2, 3]));
view.free();
same.free();
let again;
try {
  view.free();
} catch (error) {
  again = /** @type {{ code: string }} */ (error).code;
}
console.log(openIpcMappings(), again);
