import type { DeviceMemoryResource, UpstreamResourceAdaptor } from '@rmmjs/core';

export { fakeCuda, libraryPath as fakeCudaLibraryPath } from '@rmmjs/fake-cuda';

export * from './bytes.js';

// basics.js
export type Backend = 'host' | 'fake' | 'gpu';
export function backend(): Backend;
export function onHost(): boolean;
export function onFake(): boolean;
export function onGpu(): boolean;
export function withCuda(): boolean;
export function underComputeSanitizer(): boolean;
export function thrown(fn: () => unknown): any;
export function rejected(promise: Promise<unknown>): Promise<any>;
export function resolveFromPackage(name: string): string;
export function importFromPackage(name: string): Promise<any>;
export const packageUnderTest: { name: string; [key: string]: unknown };
export function packageUses(name: string): boolean;

// addon-exports.js
/** The members of T that `Names` leaves out (`never` when it lists them all). */
export type MissingKeys<T, Names extends readonly PropertyKey[]> = Exclude<keyof T, Names[number]>;
/**
 * Asserts that `addon` exports exactly `names` plus `init` (every addon has one), in any order.
 * `names` must list every member of the addon's interface: a list that misses one does not compile
 * (the error names it, as `missing`), and one that names something else does not either.
 */
export function expectAddonExports<T extends object, const Names extends readonly (keyof T & string)[]>(
  addon: T,
  names: Names & ([MissingKeys<T, Names>] extends [never] ? unknown : { missing: MissingKeys<T, Names> }),
): void;

// workers.js
export function runInWorker(
  source: string,
  options?: { modules?: Record<string, string>; workerData?: unknown },
): Promise<any>;
export interface ProcessRun {
  status: number | null;
  /** The signal that ended it (null when it exited), e.g. 'SIGKILL' after `timeout`. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** With `debugLog`: the text of the debug log ('' when nothing was logged). */
  log?: string;
}
/**
 * spawnSync with text output; a process still running after `timeout` ms (a hang) has its threads'
 * native stacks written to `stderr` (gdb, where installed) before it is killed (SIGKILL).
 */
export function spawnWithHangReport(
  command: string,
  args: string[],
  options?: { env?: NodeJS.ProcessEnv; timeout?: number },
): { status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; error?: Error };

export function runInProcess(
  code: string,
  options?: {
    modules?: Record<string, string>;
    env?: Record<string, string | undefined>;
    nodeArgs?: string[];
    debugLog?: boolean;
    /** Milliseconds before a process still running is killed (SIGKILL). */
    timeout?: number;
  },
): ProcessRun;

// resources.js
/** A conformance case a resource cannot do: why, everywhere or only on some backends. */
export type CannotReason = string | { on: Backend[]; why: string };
export type ConformanceCase =
  | 'identity'
  | 'alignment'
  | 'zeroBytes'
  | 'outOfMemory'
  | 'maxAllocation'
  | 'randomSequence'
  | 'streams'
  | 'currentResource'
  | 'workers'
  | 'transfer'
  | 'isEqual'
  | 'upstream'
  | 'dispose'
  | 'givesEverythingBack'
  | 'badArguments';

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
export function disposeAfterEach(): <T extends Disposable>(item: T) => T;
export function restoreCurrentDeviceResourceAfterEach(): DeviceMemoryResource;
export function enableFakePageableMemoryAccess(): () => void;
export function arrayTester(nbytes: number, seed: number, mr?: DeviceMemoryResource): void;
export const itemSizes: number[];
export const nelems: number[];

// conformance.js
export interface ConformanceOptions<R extends DeviceMemoryResource = DeviceMemoryResource> {
  /** An adaptor: the upstreams to run over (`upstreams(...)`); the factory gets each one's resource. */
  upstreams?: ResourceEntry[];
  /** Memory the host can read (required for base resources; adaptors: the upstream's). */
  hostAccessible?: boolean;
  /** Cannot exist in host mode: there, the suite checks construction is ERR_CUDA_DRIVER_NOT_FOUND. */
  needsCuda?: boolean;
  /** Needs pageable memory access: turned on on the fake driver; skipped on GPUs without it. */
  needsPageableMemoryAccess?: boolean;
  /** Whether this backend can construct it (default: yes). */
  available?: () => boolean;
  /** The largest request it serves; one byte more must be OutOfMemoryError. */
  maxAllocation?: number;
  /** The largest request of the random sequences (default 4 MiB, at most maxAllocation). */
  maxRandomSize?: number;
  /** Two resources from the factory compare equal with isEqual (default false: RMM's identity). */
  equalInstances?: boolean;
  /** Bytes it has handed out, where it counts them: asserted 0 after each case. */
  counts?: (mr: R) => number;
  /** The package workers import so that they see its class (default: the package under test). */
  package?: string;
  /** Cases it legitimately cannot do, and why (the case is listed as skipped with the reason). */
  cannot?: Partial<Record<ConformanceCase, CannotReason>>;
}
export const conformanceCases: ConformanceCase[];
export const conformanceSeed: number;
/** An adaptor, run over each of `options.upstreams`. */
export function describeConformance<R extends DeviceMemoryResource>(
  name: string,
  factory: (upstream: DeviceMemoryResource) => R,
  options: ConformanceOptions<R> & { upstreams: ResourceEntry[] },
): void;
/** A base resource. */
export function describeConformance<R extends DeviceMemoryResource>(
  name: string,
  factory: () => R,
  options: ConformanceOptions<R> & { hostAccessible: boolean },
): void;

// streams.js
/**
 * A stream-ordered resource and a stream of another device: refused at allocate and deallocate
 * (`TypeError` `ERR_INVALID_ARG_VALUE`, naming both devices) before anything changes; the same
 * stream works with a resource of its own device. Needs two devices (skipped, saying why, elsewhere).
 * `make(upstream)` builds the resource over a `CudaMemoryResource` of the current device, with room
 * for any one of `options.sizes` at a time.
 */
export function describeStreamOfAnotherDevice(
  name: string,
  make: (upstream: DeviceMemoryResource) => DeviceMemoryResource,
  options?: { sizes?: number[] },
): void;
/**
 * Driver calls (symbol -> count, only those made; fake driver) of a random workload through the C
 * ABI on the legacy default stream, run again after a first run warmed `mr` up. Needs
 * `@rmmjs/test-addon` in the package's devDependencies.
 */
export function steadyStateDriverCalls(
  mr: DeviceMemoryResource,
  options?: { operations?: number; maxSize?: number; maxLive?: number },
): Promise<Record<string, number>>;
