/** The per-device resource registry (process-wide: worker threads see the same resources). */
import { resourceHandle, wrapResource } from './device-memory-resource.js';
import { invalidArgType } from './errors.js';
import { native } from './native.js';
import { validateFunction, validateInteger } from './validate.js';
/** The resource device allocations on the current device come from. */
export function getCurrentDeviceResource() {
    return wrapResource(native.getPerDeviceResource(undefined));
}
/** The class of the current device's resource. */
export function getCurrentDeviceResourceType() {
    return getCurrentDeviceResource().constructor;
}
/** Makes `mr` the current device's resource; returns the previous one. */
export function setCurrentDeviceResource(mr) {
    return wrapResource(native.setPerDeviceResource(undefined, resourceHandle(mr, 'mr')));
}
export function getPerDeviceResource(device) {
    return wrapResource(native.getPerDeviceResource(validateInteger(device, 'device', 0)));
}
export function getPerDeviceResourceType(device) {
    return getPerDeviceResource(device).constructor;
}
/** Makes `mr` the resource of `device`; returns the previous one. */
export function setPerDeviceResource(device, mr) {
    validateInteger(device, 'device', 0);
    return wrapResource(native.setPerDeviceResource(device, resourceHandle(mr, 'mr')));
}
/** True once the registry can hand out resources (false only when the driver is unusable). */
export function isInitialized() {
    return native.driverInfo().mode !== 'broken';
}
/** `[free, total]` bytes of the current device (of host memory in host mode). */
export function availableDeviceMemory() {
    return native.memGetInfo(native.getDevice());
}
const hooks = [];
/** Adds `fn(...args)` to the hooks `reinitialize()` runs first (last registered runs first). */
export function registerReinitializeHook(fn, ...args) {
    validateFunction(fn, 'fn');
    hooks.push({ fn: fn, args });
    return fn;
}
/** Removes every registration of `fn`. */
export function unregisterReinitializeHook(fn) {
    if (typeof fn !== 'function')
        throw invalidArgType('fn', 'of type function', fn);
    for (let i = hooks.length - 1; i >= 0; i--)
        if (hooks[i].fn === fn)
            hooks.splice(i, 1);
}
/** @internal Runs the hooks in reverse registration order (used by `rmmjs`'s reinitialize). */
export function runReinitializeHooks() {
    for (const { fn, args } of [...hooks].reverse())
        fn(...args);
}
//# sourceMappingURL=registry.js.map