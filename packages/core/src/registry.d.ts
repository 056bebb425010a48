/** The per-device resource registry (process-wide: worker threads see the same resources). */
import { DeviceMemoryResource } from './device-memory-resource.js';
type ResourceType = new (...args: never[]) => DeviceMemoryResource;
/** The resource device allocations on the current device come from. */
export declare function getCurrentDeviceResource(): DeviceMemoryResource;
/** The class of the current device's resource. */
export declare function getCurrentDeviceResourceType(): ResourceType;
/** Makes `mr` the current device's resource; returns the previous one. */
export declare function setCurrentDeviceResource(mr: DeviceMemoryResource): DeviceMemoryResource;
export declare function getPerDeviceResource(device: number): DeviceMemoryResource;
export declare function getPerDeviceResourceType(device: number): ResourceType;
/** Makes `mr` the resource of `device`; returns the previous one. */
export declare function setPerDeviceResource(device: number, mr: DeviceMemoryResource): DeviceMemoryResource;
/** True once the registry can hand out resources (false only when the driver is unusable). */
export declare function isInitialized(): boolean;
/** `[free, total]` bytes of the current device (of host memory in host mode). */
export declare function availableDeviceMemory(): [number, number];
/** Adds `fn(...args)` to the hooks `reinitialize()` runs first (last registered runs first). */
export declare function registerReinitializeHook<F extends (...args: never[]) => unknown>(fn: F, ...args: Parameters<F>): F;
/** Removes every registration of `fn`. */
export declare function unregisterReinitializeHook(fn: (...args: never[]) => unknown): void;
/** @internal Runs the hooks in reverse registration order (used by `rmmjs`'s reinitialize). */
export declare function runReinitializeHooks(): void;
export {};
