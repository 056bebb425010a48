// What resources.js exports (index.js re-exports all but `core` and `coreInternal`).
import type * as Core from '@rmmjs/core';
import type * as CoreInternal from '@rmmjs/core/internal';
import type { DeviceMemoryResource, UpstreamResourceAdaptor } from '@rmmjs/core';
import type { CannotReason, ConformanceCase } from './conformance/types.js';

/** @rmmjs/core as the package under test resolves it (the instance its tests import). */
export const core: typeof Core;
/** @rmmjs/core/internal, the same way. */
export const coreInternal: typeof CoreInternal;

export interface ResourceEntry {
  name: string;
  make: () => DeviceMemoryResource;
  /** Whether this backend can construct it. */
  available: () => boolean;
  needsCuda: boolean;
  needsPageableMemoryAccess: boolean;
  /** Memory the host can read directly. */
  hostAccessible: boolean;
  /** CUDA managed memory (the only memory a prefetch moves). */
  managed: boolean;
  /** Two instances compare equal with isEqual. */
  equalInstances: boolean;
  /** Made for the caller, who disposes it (false for the current device resource). */
  owned: boolean;
  /** Bytes it has handed out, where it counts them. */
  counts?: (mr: any) => number;
  cannot: Partial<Record<ConformanceCase, CannotReason>>;
}
/** An entry of the shared table (kept as the name the suites used). */
export type UpstreamCase = ResourceEntry;

export const PAGEABLE_MEMORY_ACCESS: number;
export function pageableMemoryAccess(): boolean;
export const resourceTable: ResourceEntry[];
export function coreResources(): ResourceEntry[];
export function upstreams(...names: string[]): ResourceEntry[];

/** @rmmjs/test-addon's meter: the bytes outstanding, each allocation rounded up to 256 (needs @rmmjs/test-addon in devDependencies). */
export interface CountingAdaptor extends UpstreamResourceAdaptor {
  getAllocatedBytes(): number;
}
export function counting(upstream?: DeviceMemoryResource): CountingAdaptor;
/** A CallbackMemoryResource over the current device resource that records its calls (needs @rmmjs/callback in devDependencies). */
export function recordingCallbackResource(): { calls: string[]; mr: DeviceMemoryResource };
export function disposeAfterEach(): <T extends Disposable>(item: T) => T;
export function restoreCurrentDeviceResourceAfterEach(): DeviceMemoryResource;
export function enableFakePageableMemoryAccess(): () => void;
export function arrayTester(nbytes: number, seed: number, mr?: DeviceMemoryResource): void;
export const itemSizes: number[];
export const nelems: number[];
