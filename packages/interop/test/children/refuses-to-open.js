// Opens the IPC handle of its first argument (JSON), which must be refused: prints, as JSON, the
// error (its class, code, message and cudaErrorName) and the open mappings left.
import { openIpcHandle, openIpcMappings } from '@rmmjs/interop';

/** @type {unknown} */
let refusal = 'opened';
try {
  openIpcHandle(JSON.parse(/** @type {string} */ (process.argv[2])));
} catch (error) {
  const { constructor, code, message, cudaErrorName } = /** @type {Record<string, any>} */ (error);
  refusal = { name: constructor.name, code, message, cudaErrorName };
}
console.log(JSON.stringify({ refusal, mappings: openIpcMappings() }));
