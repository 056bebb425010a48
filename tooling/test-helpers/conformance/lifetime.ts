// Lifetime: an adaptor's upstream, dispose, buffers that outlive their resource, and everything
// given back once it is gone.
import type { UpstreamResourceAdaptor } from '@rmmjs/core';
import { expect } from 'vitest';
import { expectBytes, onFake } from '../basics.js';
import { core } from '../resources.js';
import { expectError, roundTrip } from './checks.js';
import { fillPattern } from './common.js';
import type { Suite } from './types.js';

const { DeviceBuffer, RMMError, Stream } = core;

export function lifetimeCases(suite: Suite): void {
  if (suite.adaptor) upstreamCase(suite);
  disposeCases(suite);
  if (suite.measurable) givesEverythingBackCase(suite);
}

function upstreamCase({ upstreamEntry, make, keep, settled, test, smallSize }: Suite): void {
  const disposable = upstreamEntry!.owned;
  test(
    'upstream',
    `upstreamMr and getUpstream() are the upstream passed in${disposable ? '; it keeps working when the upstream is disposed' : ''}`,
    () => {
      const made = make();
      const mr = made.mr as UpstreamResourceAdaptor;
      const upstream = made.upstream!;
      expect(mr.upstreamMr).toBe(upstream);
      expect(mr.getUpstream()).toBe(upstream);
      expect(mr.device).toBe(upstream.device);
      if (!disposable) return;
      upstream[Symbol.dispose]();
      roundTrip(mr, smallSize, 8);
      const again = keep(mr.upstreamMr);
      expect(again.constructor).toBe(upstream.constructor);
      settled(mr);
    },
  );
}

function disposeCases({ name, adaptor, upstreamEntry, make, test }: Suite): void {
  test('dispose', 'dispose twice is fine; use after dispose is RMMError ERR_RMM_DISPOSED', () => {
    const { mr } = make();
    mr[Symbol.dispose]();
    mr[Symbol.dispose]();
    const uses = [
      () => mr.allocate(8),
      () => mr.deallocate(256n, 8),
      () => new DeviceBuffer({ size: 8, mr }),
      () => mr.device,
      () => mr.isEqual(mr),
      ...(adaptor ? [() => (mr as UpstreamResourceAdaptor).upstreamMr] : []),
    ];
    for (const use of uses) expectError(use, RMMError, 'ERR_RMM_DISPOSED');
  });

  test('dispose', 'a buffer allocated before dispose stays valid, copies and frees after it', () => {
    const { mr, upstream } = make();
    const stream = new Stream();
    const data = fillPattern(3000, 9);
    const buffers = [new DeviceBuffer({ data, mr }), new DeviceBuffer({ data, mr, stream })];
    stream[Symbol.dispose]();
    mr[Symbol.dispose]();
    if (adaptor && upstreamEntry!.owned) upstream![Symbol.dispose]();
    for (const buffer of buffers) {
      expectBytes(buffer.toBytes(), data);
      const copy = buffer.copy();
      expectBytes(copy.toBytes(), data);
      copy.free();
    }
    const wrapper = buffers[0].mr;
    expect(wrapper.constructor.name).toBe(name);
    wrapper[Symbol.dispose]();
    for (const buffer of buffers) buffer.free();
  });
}

function givesEverythingBackCase({ make, test, smallSize }: Suite): void {
  const what = onFake() ? 'every driver allocation, stream, event and pool' : 'all it took from its upstream';
  test('givesEverythingBack', `gives back ${what} once disposed and its buffers are freed`, () => {
    const { mr, gone } = make();
    const stream = new Stream();
    roundTrip(mr, smallSize, 1, stream);
    const ptrs = [100, 5000, smallSize].map((size) => [mr.allocate(size, stream), size] as const);
    for (const [ptr, size] of ptrs) mr.deallocate(ptr, size, stream);
    const kept = new DeviceBuffer({ data: fillPattern(1000, 2), mr, stream });
    stream[Symbol.dispose]();
    mr[Symbol.dispose]();
    kept.free();
    gone();
  });
}
