// The conformance suite every resource runs with its own factory, as RMM runs
// cpp/tests/mr/mr_ref_test*.hpp (and mr_ref_test_mt.hpp) for each of its resources, in groups of
// cases: basic.ts (class, accessibility, the current device resource, equality, bad arguments),
// allocation.ts (alignment, sizes, out of memory, random sequences with byte patterns),
// streams.ts, threads.ts (worker threads, share() and transfer()) and lifetime.ts (upstreams,
// dispose, everything given back).
import type { DeviceMemoryResource } from '@rmmjs/core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { onFake, onHost } from '../basics.js';
import { core, enableFakePageableMemoryAccess, pageableMemoryAccess, type ResourceEntry } from '../resources.js';
import { allocationCases } from './allocation.js';
import { basicCases } from './basic.js';
import { expectError } from './checks.js';
import { suiteFor } from './context.js';
import { lifetimeCases } from './lifetime.js';
import { printSeedOnce } from './seed.js';
import { streamCases } from './streams.js';
import { threadCases } from './threads.js';
import type { ConformanceCase, ConformanceOptions, Factory } from './types.js';

export { conformanceSeed } from './seed.js';

/** The cases, by the names `cannot` declares them with. */
export const conformanceCases: ConformanceCase[] = [
  'identity',
  'alignment',
  'zeroBytes',
  'outOfMemory',
  'maxAllocation',
  'randomSequence',
  'streams',
  'currentResource',
  'workers',
  'transfer',
  'isEqual',
  'upstream',
  'dispose',
  'givesEverythingBack',
  'badArguments',
];

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
/**
 * Runs the conformance suite for the resource `name` (its class name) made by `factory`: for a
 * base resource `factory()`, for an adaptor `factory(upstream)` once per entry of
 * `options.upstreams` (from `upstreams(...)`). See README.md for the options.
 */
export function describeConformance<R extends DeviceMemoryResource>(
  name: string,
  factory: (upstream: DeviceMemoryResource) => R,
  options: ConformanceOptions<R>,
): void {
  const make = factory as Factory; // a base resource's takes no upstream, and gets none
  const unknown = Object.keys(options.cannot ?? {}).filter((id) => !conformanceCases.includes(id as ConformanceCase));
  if (unknown.length > 0)
    throw new Error(`describeConformance("${name}"): unknown cases in cannot: ${unknown.join(', ')}`);
  if (options.upstreams === undefined) {
    if (typeof options.hostAccessible !== 'boolean') {
      throw new Error(`describeConformance("${name}"): say whether its memory is hostAccessible (a base resource)`);
    }
    describeResource(name, name, make, undefined, options as ConformanceOptions);
    return;
  }
  if (options.upstreams.length === 0)
    throw new Error(`describeConformance("${name}"): no upstream can be made on this backend`);
  for (const upstream of options.upstreams)
    describeResource(`${name} over ${upstream.name}`, name, make, upstream, options as ConformanceOptions);
}

function describeResource(
  title: string,
  className: string,
  factory: Factory,
  upstreamEntry: ResourceEntry | undefined,
  options: ConformanceOptions,
): void {
  describe(`conformance: ${title}`, () => {
    if (options.needsCuda && onHost()) {
      it('needs CUDA: in host mode its construction is CudaError ERR_CUDA_DRIVER_NOT_FOUND', () => {
        expectError(() => factory(), core.CudaError, 'ERR_CUDA_DRIVER_NOT_FOUND');
      });
      return;
    }
    if (options.needsPageableMemoryAccess && onFake()) {
      let restore: (() => void) | undefined;
      beforeAll(() => {
        restore = enableFakePageableMemoryAccess();
      });
      afterAll(() => restore?.());
    } else if (options.needsPageableMemoryAccess && !pageableMemoryAccess()) {
      it.skip('not on this GPU: it needs pageable memory access (HMM or ATS)', () => {});
      return;
    } else if (options.available !== undefined && !options.available()) {
      it.skip('not on this backend', () => {});
      return;
    }
    beforeAll(printSeedOnce);
    const suite = suiteFor(className, factory, upstreamEntry, options);
    basicCases(suite);
    allocationCases(suite);
    streamCases(suite);
    threadCases(suite);
    lifetimeCases(suite);
  });
}
