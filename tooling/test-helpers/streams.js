// A stream-ordered resource (pool, fixed-size, arena) and a stream of another device: its events are
// of its own device's primary context and record on no other context's stream, so it refuses such
// a stream at allocate and deallocate, before anything changes, and the same stream still works
// with a resource of the stream's own device. Needs two devices: the fake driver has two, host mode
// one (the cases are skipped there, saying so).
import { describe, expect, it } from 'vitest';
import { fakeCuda } from '@rmmjs/fake-cuda';
import { importFromPackage, onFake, random, thrown, withCuda } from './basics.js';
import { core, disposeAfterEach } from './resources.js';

const { CudaMemoryResource, Stream, cuda } = core;

const twoDevices = () => withCuda() && cuda.getDeviceCount() >= 2;

/** Runs fn with `device` current, then makes device 0 current again. */
function onDevice(device, fn) {
  cuda.setDevice(device);
  try {
    return fn();
  } finally {
    cuda.setDevice(0);
  }
}

/** What the fake driver holds now (device bytes per device, events, streams); {} elsewhere. */
const held = () => {
  if (!onFake()) return {};
  const { liveDeviceBytes, liveEvents, liveStreams } = fakeCuda.stats();
  return { liveDeviceBytes, liveEvents, liveStreams };
};

function expectRefused(fn) {
  const error = thrown(fn);
  expect(error).toBeInstanceOf(TypeError);
  expect(error.code).toBe('ERR_INVALID_ARG_VALUE');
  expect(error.message).toContain('the stream belongs to device 1');
  expect(error.message).toContain('a resource of device 0');
}

/**
 * The cases for a stream-ordered resource; `make(upstream)` builds it over `upstream` (a
 * `CudaMemoryResource` of the current device) with room for any one of `sizes` (default 1000 B,
 * 64 KiB and 512 KiB) at a time.
 */
export function describeStreamOfAnotherDevice(name, make, { sizes = [1000, 64 * 1024, 512 * 1024] } = {}) {
  describe(`${name} and a stream of another device`, () => {
    const keep = disposeAfterEach();
    const skip = twoDevices() ? false : 'needs two devices (host mode and this machine have one)';

    it.skipIf(skip)(
      `refuses it at allocate and deallocate with ERR_INVALID_ARG_VALUE, changing nothing${skip ? `: ${skip}` : ''}`,
      () => {
        const before = held();
        const stream = keep(onDevice(1, () => new Stream()));
        const mr = make(keep(new CudaMemoryResource())); // device 0's
        expect(mr.device).toBe(0);
        for (const size of sizes) {
          // As the failure was found: device 1 current, then with device 0 current.
          onDevice(1, () => expectRefused(() => mr.allocate(size, stream)));
          expectRefused(() => mr.allocate(size, stream));
          const p = mr.allocate(size);
          // A block freed on that stream stays the caller's, to free on a usable stream.
          onDevice(1, () => expectRefused(() => mr.deallocate(p, size, stream)));
          expectRefused(() => mr.deallocate(p, size, stream));
          mr.deallocate(p, size);
          expect(thrown(() => mr.deallocate(p, size)).code).toBe('ERR_RMM_LOGIC'); // freed once, now
        }
        mr[Symbol.dispose]();
        stream[Symbol.dispose]();
        expect(held()).toEqual(before);
      },
    );

    it.skipIf(skip)(`works with a resource of the stream's device${skip ? `: ${skip}` : ''}`, () => {
      const before = held();
      const stream = keep(onDevice(1, () => new Stream()));
      const other = keep(new Stream()); // device 0's, for the waits across devices
      const mr = onDevice(1, () => make(keep(new CudaMemoryResource())));
      expect(mr.device).toBe(1);
      for (const current of [1, 0]) {
        onDevice(current, () => {
          for (const size of sizes) {
            // Freed on the stream, then taken on the default stream (a wait on the stream's event)
            // and back on the stream.
            const p = mr.allocate(size, stream);
            mr.deallocate(p, size, stream);
            const q = mr.allocate(size);
            mr.deallocate(q, size);
            const r = mr.allocate(size, stream);
            expect(r).toBeGreaterThan(0n);
            mr.deallocate(r, size, stream);
          }
        });
      }
      // A device-0 stream is refused by device 1's resource in turn.
      const error = thrown(() => mr.allocate(1000, other));
      expect([error.constructor, error.code]).toEqual([TypeError, 'ERR_INVALID_ARG_VALUE']);
      expect(error.message).toContain('the stream belongs to device 0');
      expect(error.message).toContain('a resource of device 1');
      mr[Symbol.dispose]();
      stream[Symbol.dispose]();
      other[Symbol.dispose]();
      expect(held()).toEqual(before);
    });
  });
}

/**
 * The driver calls (fake driver: symbol -> count, only those made) of a random workload through the
 * C ABI on the legacy default stream (`abiRandomNs` of `@rmmjs/test-addon`, which the package under
 * test lists), run a second time after a first run warmed `mr` up: a stream-ordered resource's steady
 * state on one stream makes none. Sizes are 1 byte to `maxSize`, with up to `maxLive` allocations live.
 */
export async function steadyStateDriverCalls(mr, { operations = 20_000, maxSize = 64 * 1024, maxLive = 200 } = {}) {
  const { abiRandomNs } = await importFromPackage('@rmmjs/test-addon');
  const next = random(24301);
  const sizes = new Float64Array(operations);
  const frees = new Float64Array(operations);
  let live = 0;
  for (let i = 0; i < operations; i++) {
    if (live === 0 || (live < maxLive && next() < 0.5)) {
      sizes[i] = 1 + Math.floor(next() * maxSize);
      live++;
    } else {
      frees[i] = Math.floor(next() * live);
      live--;
    }
  }
  abiRandomNs(mr, sizes, frees);
  const before = fakeCuda.stats().calls;
  abiRandomNs(mr, sizes, frees);
  const after = fakeCuda.stats().calls;
  return Object.fromEntries(
    Object.entries(after)
      .map(([symbol, count]) => [symbol, count - (before[symbol] ?? 0)])
      .filter(([, count]) => count !== 0),
  );
}
