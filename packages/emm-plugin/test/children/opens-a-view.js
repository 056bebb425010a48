// Opens the IPC handle of its first argument (JSON) with interop's openIpcHandle: prints the view's
// size and first byte, then writes [7, 7] at its start and frees the view.
import { openIpcHandle } from '@rmmjs/interop';

const view = openIpcHandle(JSON.parse(/** @type {string} */ (process.argv[2])));
console.log(view.size, view.toBytes()[0]);
view.copyFromHost(new Uint8Array([7, 7]));
view.free();
