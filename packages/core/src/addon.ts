/**
 * For native addons that allocate through rmmjs or implement a memory resource in C or C++ (the
 * C ABI is include/rmmjs/abi.h; the README's "Native addons" section shows a complete example):
 * core's API table, and `loadAddon`, which hands it to an addon's `init`.
 */
import { invalidArgType, invalidArgValue } from './errors.js';
import { requireAddon } from './load-addon.js';
import { holdJsException, makeNativeError, native, type CoreApi, type MakeErrorFn } from './native.js';
import { validateInteger } from './validate.js';

export { holdJsException };
export { resourceHandle, wrapResource, registerResourceClass } from './device-memory-resource.js';
export { adoptMemory, holdMemory, guardBuffer } from './device-buffer.js';
export type { CoreApi, MakeErrorFn, ResourceHandle, MemoryHandle, BufferGuardHandle } from './native.js';

/** Core's API table (`rmmjs_core_api`), as the type-tagged external an addon's `init` receives. */
export const coreApi: CoreApi = native.coreApi;

/** The C ABI version core implements, `"major.minor"` (`RMMJS_ABI_MAJOR`.`RMMJS_ABI_MINOR`). */
export const abiVersion: string = native.abiVersion;

/**
 * `(status, message, cudaCode, nodeCode?) => Error`: the error of the class a `rmmjs_status`
 * stands for (`OutOfMemoryError` for `RMMJS_ERR_OUT_OF_MEMORY`, `CudaError` for `RMMJS_ERR_CUDA`,
 * ...), with `message`. For `RMMJS_ERR_JS_EXCEPTION` it returns the error a JavaScript callback
 * threw (handed over with `holdJsException`). An addon throws what it returns.
 */
export const makeError: MakeErrorFn = (status, message, cudaCode, nodeCode) => {
  validateInteger(status, 'status');
  if (typeof message !== 'string') throw invalidArgType('message', 'of type string', message);
  validateInteger(cudaCode, 'cudaCode');
  if (nodeCode !== undefined && typeof nodeCode !== 'string')
    throw invalidArgType('nodeCode', 'of type string', nodeCode);
  return makeNativeError(status, message, cudaCode, nodeCode);
};

/** What `loadAddon` calls: an addon's `init(coreApi, makeError, holdJsException)`. */
export interface AddonInit {
  init(coreApi: CoreApi, makeError: MakeErrorFn, holdJsException: (error: unknown) => string): unknown;
}

/**
 * Loads the native addon of the package directory `packageDir` (relative to the module
 * `moduleUrl`: `'..'` from `dist/index.js` with `import.meta.url`) and calls its
 * `init(coreApi, makeError, holdJsException)` (what RMMJS_ADDON in rmmjs/addon.hpp defines; a
 * plain-C addon implements it by hand). The addon is `build/Release/<name>.node` when built from
 * source, else the prebuild in `prebuilds/<platform>-<arch>/` (node-gyp-build's layout, e.g.
 * `prebuilds/linux-x64/<name>.napi.glibc.node`). An addon that cannot be loaded throws an
 * `RMMError` with code `ERR_RMM_ADDON_LOAD_FAILED` that says what to do (`packageName` names the
 * addon in it); one that refuses core's table (another ABI major, or a newer minor than this
 * core's) throws its own error.
 */
export function loadAddon<T>(moduleUrl: string, packageDir: string, packageName: string): T {
  if (typeof moduleUrl !== 'string') throw invalidArgType('moduleUrl', 'of type string', moduleUrl);
  if (typeof packageDir !== 'string') throw invalidArgType('packageDir', 'of type string', packageDir);
  if (typeof packageName !== 'string') throw invalidArgType('packageName', 'of type string', packageName);
  if (!URL.canParse(moduleUrl) || new URL(moduleUrl).protocol !== 'file:') {
    throw invalidArgValue('moduleUrl', `must be a file: URL such as import.meta.url. Received '${moduleUrl}'`);
  }
  if (packageDir.endsWith('.node')) {
    throw invalidArgValue(
      'packageDir',
      `must name the package's directory (the addon is found in its build/Release/ or prebuilds/), not a .node file. Received '${packageDir}'`,
    );
  }
  const addon = requireAddon<T & AddonInit>(moduleUrl, packageDir, packageName);
  addon.init(coreApi, makeError, holdJsException);
  return addon;
}
