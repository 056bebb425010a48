/**
 * For rmmjs's own packages (adaptors, logging, statistics, the umbrella): the pieces each
 * one needs to build its addon and classes on core. Not a public API.
 */
export { native, makeNativeError } from './native.js';
export type { NativeCore, ResourceHandle, StreamNative, BufferNative, CoreApi, MakeErrorFn } from './native.js';
export { loadAddon } from './load-addon.js';
export { resourceHandle, wrapResource, registerResourceClass } from './device-memory-resource.js';
export { streamArg } from './stream.js';
export { runReinitializeHooks } from './registry.js';
export { invalidArgType, invalidArgValue, outOfRange, makeError, Status } from './errors.js';
export { validateSize, validateSizeOption, validateInteger, validateBoolean, validateFunction, validateOptions, } from './validate.js';
/** An adaptor addon, loaded and handed core's API table (its `init(coreApi, makeError)`). */
export declare function loadAdaptorAddon<T>(packageUrl: string, name: string, packageName: string): T;
