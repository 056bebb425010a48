// Opens the 'pool' IPC handle of its second argument (JSON) before and after receiving the pool on
// the socket of its first: prints the refusal before (code, and whether it says the pool was not
// received), whether the pool is the handle's and its device, the view's first and last bytes;
// then writes [7, 7] at its start, frees the view, closes the pool and prints the refusal after
// and the open mappings left.
import { openIpcHandle, openIpcMappings, receiveIpcPool } from '@rmmjs/interop';

const [path, json] = /** @type {[string, string]} */ (process.argv.slice(2));
const handle = JSON.parse(json);
const refused = () => {
  try {
    openIpcHandle(handle);
  } catch (error) {
    const { code, message } = /** @type {{ code: string, message: string }} */ (error);
    console.log(code, message.includes('was not received by this process'));
  }
};
refused();
const pool = await receiveIpcPool(path, { timeout: 30_000 });
console.log(pool.id === handle.pool, pool.device);
const view = openIpcHandle(handle);
const bytes = view.toBytes();
console.log(bytes[0], bytes[view.size - 1]);
view.copyFromHost(new Uint8Array([7, 7]));
view.free();
pool.close();
refused();
console.log(openIpcMappings());
