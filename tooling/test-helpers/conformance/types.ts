// The conformance suite's types: its cases, its options, and what each group of cases is given.
import type { DeviceMemoryResource } from '@rmmjs/core';
import type { Backend } from '../basics.js';
import type { ResourceEntry } from '../resources.js';

/** The cases, by the names `cannot` declares them with. */
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

/** A conformance case a resource cannot do: why, everywhere or only on some backends. */
export type CannotReason = string | { on: Backend[]; why: string };

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

/** Makes the resource under test: `factory()` for a base resource, `factory(upstream)` for an adaptor. */
export type Factory = (upstream?: DeviceMemoryResource) => DeviceMemoryResource;

/** A resource made for one case, and its upstream (an adaptor's), both disposed after the case. */
export interface Made {
  mr: DeviceMemoryResource;
  upstream: DeviceMemoryResource | undefined;
  /** Disposes mr and, where the suite can measure, asserts it gave back everything it took. */
  gone(): void;
}

/** What each group of cases is given: the resource under test and the suite's settings for it. */
export interface Suite {
  /** The class name of the resource under test. */
  name: string;
  /** Whether it is an adaptor (run over `upstreamEntry`) rather than a base resource. */
  adaptor: boolean;
  upstreamEntry: ResourceEntry | undefined;
  options: ConformanceOptions;
  /** A new resource (and upstream) for this case. */
  make(): Made;
  /** Another resource from the factory (over `upstream` for an adaptor), disposed after the case. */
  another(upstream: DeviceMemoryResource | undefined): DeviceMemoryResource;
  /** Disposes `item` after the case. */
  keep<T extends Disposable>(item: T): T;
  /** Defines case `id`, or lists it as skipped with the reason `cannot` gives for this backend. */
  test(id: ConformanceCase, title: string, fn: () => unknown): void;
  /** Where the resource counts what it handed out (`options.counts`): that it is 0. */
  settled(mr: DeviceMemoryResource): void;
  counts: ((mr: DeviceMemoryResource) => number) | undefined;
  /** Whether `gone()` can check that everything was given back (the fake driver, or an upstream that counts). */
  measurable: boolean;
  maxAllocation: number;
  maxRandomSize: number;
  /** 64 KiB, or the maximum allocation when it is smaller. */
  smallSize: number;
  /** The package a worker imports so that the resource comes to it as its class. */
  package: string;
}
