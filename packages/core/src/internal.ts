/**
 * For rmmjs's own packages: the pieces each one needs to build its addon and classes on core.
 * Not a public API: third-party addons use '@rmmjs/core/addon'.
 */
export { native, makeNativeError, holdJsException, heldJsException, takeHeldJsException } from './native.js';
export type {
  NativeCore,
  ResourceHandle,
  StreamNative,
  BufferNative,
  CoreApi,
  MakeErrorFn,
  MemoryHandle,
  BufferGuardHandle,
} from './native.js';
/** Loads a package's own addon and hands it core's API table, error factory and exception sink (its init). */
export { loadAddon as loadPackageAddon, coreApi, abiVersion } from './addon.js';
export { resourceHandle, wrapResource, registerResourceClass, isMemoryResource } from './device-memory-resource.js';
export { adoptMemory, holdMemory, guardBuffer, isBuffer } from './device-buffer.js';
export { streamArg } from './stream.js';
export { runReinitializeHooks } from './registry.js';
export { runInScope } from './scope.js';
export { WeakReference } from './weak-reference.js';
export { invalidArgType, invalidArgValue, outOfRange, makeError, Status } from './errors.js';
export { constructedDirectly } from './errors.js';
export {
  validateSize,
  validateSizeOption,
  validateInteger,
  validateBoolean,
  validateFunction,
  validateOptions,
} from './validate.js';
