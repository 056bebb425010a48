/** The per-device resource registry (process-wide: worker threads see the same resources). */
import { DeviceMemoryResource, resourceHandle, wrapResource } from './device-memory-resource.js';
import { invalidArgType } from './errors.js';
import { native } from './native.js';
import { validateFunction, validateInteger } from './validate.js';

/** A resource class: a constructor of `DeviceMemoryResource`s. */
export type ResourceType = new (...args: never[]) => DeviceMemoryResource;

/** The resource device allocations on the current device come from. */
export function getCurrentDeviceResource(): DeviceMemoryResource {
  return wrapResource(native.getPerDeviceResource(undefined));
}

/** The class of the current device's resource. */
export function getCurrentDeviceResourceType(): ResourceType {
  return getCurrentDeviceResource().constructor as ResourceType;
}

/** Makes `mr` the current device's resource; returns the previous one. */
export function setCurrentDeviceResource(mr: DeviceMemoryResource): DeviceMemoryResource {
  return wrapResource(native.setPerDeviceResource(undefined, resourceHandle(mr, 'mr')));
}

/**
 * The resource allocations on `device` come from; the first call for a device makes its default
 * (`CudaMemoryResource`, or `SystemMemoryResource` in host mode). A device that does not exist is
 * `RangeError` `ERR_OUT_OF_RANGE`.
 */
export function getPerDeviceResource(device: number): DeviceMemoryResource {
  return wrapResource(native.getPerDeviceResource(validateInteger(device, 'device', 0)));
}

/** The class of `device`'s resource. */
export function getPerDeviceResourceType(device: number): ResourceType {
  return getPerDeviceResource(device).constructor as ResourceType;
}

/** Makes `mr` the resource of `device`; returns the previous one. */
export function setPerDeviceResource(device: number, mr: DeviceMemoryResource): DeviceMemoryResource {
  validateInteger(device, 'device', 0);
  return wrapResource(native.setPerDeviceResource(device, resourceHandle(mr, 'mr')));
}

/** True once the registry can hand out resources (false only when the driver is unusable). */
export function isInitialized(): boolean {
  return native.driverInfo().mode !== 'broken';
}

/** `[free, total]` bytes of the current device (of host memory in host mode). */
export function availableDeviceMemory(): [number, number] {
  return native.memGetInfo(native.getDevice());
}

type Hook = { fn: (...args: unknown[]) => unknown; args: unknown[] };
const hooks: Hook[] = [];

/**
 * Adds `fn(...args)` to the reinitialize hooks (`runReinitializeHooks` runs the last registered first).
 *
 * @typeParam F - The hook's type; `args` are its parameters and `fn` is returned as given.
 */
export function registerReinitializeHook<F extends (...args: never[]) => unknown>(fn: F, ...args: Parameters<F>): F {
  validateFunction(fn, 'fn');
  hooks.push({ fn: fn as unknown as Hook['fn'], args });
  return fn;
}

/** Removes every registration of `fn`. */
export function unregisterReinitializeHook(fn: (...args: never[]) => unknown): void {
  if (typeof fn !== 'function') throw invalidArgType('fn', 'of type function', fn);
  for (let i = hooks.length - 1; i >= 0; i--) if (hooks[i].fn === fn) hooks.splice(i, 1);
}

/** @internal Runs the reinitialize hooks in reverse registration order. */
export function runReinitializeHooks(): void {
  for (const { fn, args } of [...hooks].reverse()) fn(...args);
}
