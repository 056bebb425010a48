// What a resource's cases share (a Suite): how they make the resource, measure what it gave back
// and skip what it cannot do.
import type { DeviceMemoryResource } from '@rmmjs/core';
import { it, expect } from 'vitest';
import { fakeCuda } from '@rmmjs/fake-cuda';
import { KiB, MiB, backend, onFake, packageUnderTest } from '../basics.js';
import { disposeAfterEach, type ResourceEntry } from '../resources.js';
import type { CannotReason, ConformanceCase, ConformanceOptions, Factory, Made, Suite } from './types.js';

// What `cannot[id]` declares for this backend: the reason, or undefined when the case runs.
function cannotReason(cannot: Partial<Record<ConformanceCase, CannotReason>>, id: ConformanceCase) {
  const declared = cannot[id];
  if (declared === undefined || typeof declared === 'string') return declared;
  return declared.on.includes(backend()) ? declared.why : undefined;
}

// What must be back where it was once a resource is gone: on the fake driver its live
// allocations, streams, events and pools; where the upstream counts, the bytes it handed out.
function measurer(upstreamEntry: ResourceEntry | undefined) {
  const upstreamCounts = upstreamEntry?.counts;
  const measurable = onFake() || upstreamCounts !== undefined;
  const measure = (upstream: DeviceMemoryResource | undefined) => {
    const { liveAllocations, liveBytes, liveStreams, liveEvents, livePools } = onFake() ? fakeCuda.stats() : {};
    return {
      liveAllocations,
      liveBytes,
      liveStreams,
      liveEvents,
      livePools,
      upstreamBytes: upstreamCounts?.(upstream),
    };
  };
  return { measurable, measure };
}

/** The Suite of the resource `name` made by `factory` (over each upstream of `upstreamEntry`). */
export function suiteFor(
  name: string,
  factory: Factory,
  upstreamEntry: ResourceEntry | undefined,
  options: ConformanceOptions,
): Suite {
  const keep = disposeAfterEach();
  const adaptor = upstreamEntry !== undefined;
  const { measurable, measure } = measurer(upstreamEntry);
  const another = (upstream: DeviceMemoryResource | undefined) => keep(adaptor ? factory(upstream) : factory());
  // One resource (and its upstream) per call, disposed after the test.
  const make = (): Made => {
    const upstream = adaptor ? keep(upstreamEntry.make()) : undefined;
    const before = measurable ? measure(upstream) : undefined;
    const mr = another(upstream);
    const gone = () => {
      mr[Symbol.dispose]();
      if (measurable) expect(measure(upstream)).toEqual(before);
    };
    return { mr, upstream, gone };
  };
  const counts = options.counts;
  const cannot = { ...upstreamEntry?.cannot, ...options.cannot };
  const maxAllocation = options.maxAllocation ?? Number.MAX_SAFE_INTEGER;
  return {
    name,
    adaptor,
    upstreamEntry,
    options,
    make,
    another,
    keep,
    test(id, title, fn) {
      const why = cannotReason(cannot, id);
      if (why === undefined) it(title, fn);
      else it.skip(`${title} [cannot: ${why}]`, () => {});
    },
    // Where the resource counts what it handed out, nothing is outstanding between cases.
    settled(mr) {
      if (counts !== undefined) expect(counts(mr)).toBe(0);
    },
    counts,
    measurable,
    maxAllocation,
    maxRandomSize: Math.min(options.maxRandomSize ?? 4 * MiB, maxAllocation),
    smallSize: Math.min(64 * KiB, maxAllocation),
    package: options.package ?? packageUnderTest.name,
  };
}
