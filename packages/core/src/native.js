/** The typed face of core's addon (src/native). Internal: packages use @rmmjs/core/internal. */
import { makeError } from './errors.js';
import { loadAddon } from './load-addon.js';
export const native = loadAddon(import.meta.url, 'rmmjs_core', '@rmmjs/core');
/** The error factory every addon receives (see include/rmmjs/napi.hpp). */
export const makeNativeError = (status, message, cudaCode, nodeCode) => makeError(status, message, cudaCode, nodeCode, (code) => native.errorName(code));
native.init(makeNativeError);
//# sourceMappingURL=native.js.map