/**
 * For rmmjs's own packages (adaptors, logging, statistics, the umbrella): the pieces each
 * one needs to build its addon and classes on core. Not a public API.
 */
export { native, makeNativeError, holdJsException, heldJsException, takeHeldJsException } from './native.js';
export type { NativeCore, ResourceHandle, StreamNative, BufferNative, CoreApi, MakeErrorFn } from './native.js';
export { loadAddon } from './load-addon.js';
export { resourceHandle, wrapResource, registerResourceClass } from './device-memory-resource.js';
export { streamArg } from './stream.js';
export { runReinitializeHooks } from './registry.js';
export { invalidArgType, invalidArgValue, outOfRange, makeError, Status } from './errors.js';
export {
  validateSize,
  validateSizeOption,
  validateInteger,
  validateBoolean,
  validateFunction,
  validateOptions,
} from './validate.js';

import { loadAddon } from './load-addon.js';
import { holdJsException, makeNativeError, native } from './native.js';

/**
 * An adaptor addon, loaded and handed core's API table, error factory and exception sink (its
 * `init(coreApi, makeError, holdJsException)`, defined by RMMJS_ADDON in rmmjs/addon.hpp).
 */
export function loadAdaptorAddon<T>(moduleUrl: string, relativePath: string, packageName: string): T {
  const addon = loadAddon<T & { init(api: unknown, makeError: unknown, holdError: unknown): void }>(
    moduleUrl,
    relativePath,
    packageName,
  );
  addon.init(native.coreApi, makeNativeError, holdJsException);
  return addon;
}
