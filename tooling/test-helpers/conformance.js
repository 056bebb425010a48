// The conformance suite every resource runs with its own factory, as RMM runs
// cpp/tests/mr/mr_ref_test*.hpp (and mr_ref_test_mt.hpp) for each of its resources: alignment,
// sizes, out of memory, random allocate/free sequences with byte patterns, streams, the current
// device resource, worker threads (the registry, share() and transfer()), equality, upstreams,
// dispose and bad arguments.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeCuda } from '@rmmjs/fake-cuda';
import {
  KiB,
  MiB,
  PiB,
  backend,
  equalBytes,
  expectBytes,
  onFake,
  onHost,
  packageUnderTest,
  random,
  thrown,
  withCuda,
} from './basics.js';
import {
  core,
  coreInternal,
  disposeAfterEach,
  enableFakePageableMemoryAccess,
  pageableMemoryAccess,
} from './resources.js';
import { runInWorker } from './workers.js';

const {
  CudaError,
  DEFAULT_STREAM,
  DeviceBuffer,
  DeviceMemoryResource,
  LEGACY_DEFAULT_STREAM,
  OutOfMemoryError,
  PER_THREAD_DEFAULT_STREAM,
  RMMError,
  Stream,
  UpstreamResourceAdaptor,
  cuda,
  getCurrentDeviceResource,
  getCurrentDeviceResourceType,
  setCurrentDeviceResource,
} = core;

// Resource flags of the C ABI (include/rmmjs/abi.h).
const RESOURCE_DEVICE_ACCESSIBLE = 0x1;
const RESOURCE_HOST_ACCESSIBLE = 0x2;

/** The cases, by the names `cannot` declares them with. */
export const conformanceCases = [
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

/** The seed of the random sequences: RMMJS_TEST_SEED, else a new one each run (printed). */
export const conformanceSeed = (() => {
  const given = process.env.RMMJS_TEST_SEED;
  if (given === undefined) return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(given);
  if (!Number.isSafeInteger(seed) || seed < 0)
    throw new Error(`RMMJS_TEST_SEED must be a non-negative integer, not "${given}"`);
  return seed;
})();
let seedPrinted = false;
function printSeedOnce() {
  if (!seedPrinted) console.log(`conformance: random sizes and patterns from RMMJS_TEST_SEED=${conformanceSeed}`);
  seedPrinted = true;
}

/** `size` bytes of a xorshift pattern for seed (a few ms for MiBs; shared with the workers as source). */
function fillPattern(size, seed) {
  const words = new Uint32Array(Math.ceil(size / 4));
  let x = seed | 0 || 1;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x;
  }
  return new Uint8Array(words.buffer, 0, size);
}

/** A size from 1 to max, uniform in its logarithm (mostly small, now and then large). */
function randomSize(next, max) {
  return Math.min(max, Math.max(1, Math.round(Math.exp(next() * Math.log(max)))));
}

const hex = (ptr) => `0x${ptr.toString(16)}`;

/** Asserts the blocks [ptr, ptr + size) are non-null, 256-byte aligned and pairwise disjoint. */
function expectPlaced(ptrs, sizes) {
  const blocks = ptrs.map((ptr, i) => ({ ptr, end: ptr + BigInt(sizes[i]) })).sort((a, b) => (a.ptr < b.ptr ? -1 : 1));
  for (const [i, { ptr, end }] of blocks.entries()) {
    if (ptr === 0n || ptr % 256n !== 0n) throw new Error(`pointer ${hex(ptr)} is null or not 256-byte aligned`);
    const next = blocks[i + 1];
    if (next !== undefined && next.ptr < end)
      throw new Error(`blocks at ${hex(ptr)} (to ${hex(end)}) and ${hex(next.ptr)} overlap`);
  }
}

function expectError(fn, Class, code, text) {
  const error = thrown(fn);
  expect(error).toBeInstanceOf(Class);
  expect(error.code).toBe(code);
  if (text !== undefined) expect(error.message).toContain(text);
  return error;
}

/** Runs fn on the default stream (undefined) and on a new stream, then synchronises and disposes that. */
function onDefaultAndNewStream(fn) {
  const stream = new Stream();
  try {
    fn(undefined);
    fn(stream);
    stream.synchronize();
  } finally {
    stream[Symbol.dispose]();
  }
}

/** A DeviceBuffer with a pattern over mr on stream, read back and freed. */
function roundTrip(mr, size, seed, stream) {
  const data = fillPattern(size, seed);
  const buffer = new DeviceBuffer({ data, mr, stream });
  const back = buffer.toBytes();
  buffer.free();
  expectBytes(back, data);
}

/**
 * RMM's mixed random allocation test with data: DeviceBuffers of random sizes (1 B to maxSize),
 * each filled with its own pattern, freed in random order after the pattern is checked; every
 * new block must be aligned and overlap no live one.
 */
function randomSequence(mr, { seed, stream, maxSize, steps = 160, maxLive = 12 }) {
  const next = random(seed);
  const live = [];
  const release = (index) => {
    const [{ buffer, data }] = live.splice(index, 1);
    const { ptr } = buffer;
    const intact = equalBytes(buffer.toBytes(), data);
    buffer.free();
    if (!intact) throw new Error(`the ${data.length} bytes at ${hex(ptr)} changed before their free`);
  };
  try {
    for (let step = 0; step < steps; step++) {
      if (live.length >= maxLive || (live.length > 0 && next() < 0.47)) {
        release(Math.floor(next() * live.length));
        continue;
      }
      const data = fillPattern(randomSize(next, maxSize), Math.floor(next() * 2 ** 32));
      live.push({ buffer: new DeviceBuffer({ data, mr, stream }), data });
      expectPlaced(
        live.map((item) => item.buffer.ptr),
        live.map((item) => item.data.length),
      );
    }
    while (live.length > 0) release(live.length - 1);
  } catch (error) {
    for (const { buffer } of live) buffer.free();
    error.message = `${error.message} (RMMJS_TEST_SEED=${conformanceSeed} repeats it)`;
    throw error;
  }
}

// Shared slots of the worker cases (a BigInt64Array over a SharedArrayBuffer). Workers wait
// with Atomics.wait; the main thread polls, since its event loop must keep running.
const READY = 0; // workers that have started
const GO = 1; // set by the main thread once all have started
const PUBLISHED = 2; // blocks the producer published (-1 when it failed)
const FIRST_BLOCK = 3; // then (pointer, size) pairs

const waitInWorker = `
  const waitFor = (slots, index, done) => {
    for (let value; !done((value = Atomics.load(slots, index))); ) {
      if (value < 0n) throw new Error('the main thread failed');
      if (Atomics.wait(slots, index, value, 100000) === 'timed-out') throw new Error('nothing from the main thread in 100 s');
    }
  };`;

/** Resolves once `count` workers have started (or rejects with the first that failed), then lets them go. */
async function startTogether(slots, count, workers) {
  while (Atomics.load(slots, READY) < BigInt(count))
    await Promise.race([workers, new Promise((resolve) => setTimeout(resolve, 2))]);
  Atomics.store(slots, GO, 1n);
  Atomics.notify(slots, GO);
}

// In a worker (runInWorker): the random sequence through the current device resource, on
// workerData.streamKind ('stream' or 'perThread'), once the main thread says go; returns what the
// main thread checks.
const workerSequence = `
  ${random}
  ${fillPattern}
  ${randomSize}
  ${waitInWorker}
  const { seed, steps, maxSize, streamKind } = workerData;
  const slots = new BigInt64Array(workerData.slots);
  const stream = streamKind === 'stream' ? new core.Stream() : core.PER_THREAD_DEFAULT_STREAM;
  const mr = core.getCurrentDeviceResource();
  const next = random(seed);
  const live = [];
  const seen = { className: mr.constructor.name, sameResource: true, allocations: 0, frees: 0, misaligned: 0, changed: 0 };
  const same = (a, b) => Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0;
  const release = (index) => {
    const [{ buffer, data }] = live.splice(index, 1);
    if (!same(buffer.toBytes(), data)) seen.changed++;
    buffer.free();
    seen.frees++;
  };
  Atomics.add(slots, ${READY}, 1n);
  waitFor(slots, ${GO}, (go) => go === 1n);
  for (let step = 0; step < steps; step++) {
    if (live.length >= 8 || (live.length > 0 && next() < 0.47)) {
      release(Math.floor(next() * live.length));
      continue;
    }
    const data = fillPattern(randomSize(next, maxSize), Math.floor(next() * 2 ** 32));
    const buffer = new core.DeviceBuffer({ data, stream });
    seen.allocations++;
    if (buffer.ptr % 256n !== 0n) seen.misaligned++;
    if (buffer.mr !== mr) seen.sameResource = false;
    live.push({ buffer, data });
  }
  while (live.length > 0) release(0);
  if (streamKind === 'stream') stream[Symbol.dispose]();
  return seen;`;

// In a worker: RMM's async_deallocate_loop. It frees each block the main thread publishes, on a
// stream of its own, as it appears; then allocates workerData.count blocks of workerData.size for
// the main thread to free.
const workerConsumer = `
  ${waitInWorker}
  const { count, size } = workerData;
  const slots = new BigInt64Array(workerData.slots);
  const mr = core.getCurrentDeviceResource();
  const stream = new core.Stream();
  try {
    Atomics.add(slots, ${READY}, 1n);
    for (let i = 0; i < count; i++) {
      waitFor(slots, ${PUBLISHED}, (published) => published > BigInt(i));
      mr.deallocate(slots[${FIRST_BLOCK} + 2 * i], Number(slots[${FIRST_BLOCK} + 2 * i + 1]), stream);
    }
    const theirs = Array.from({ length: 8 }, () => mr.allocate(size, stream));
    stream.synchronize();
    return theirs;
  } finally {
    stream[Symbol.dispose]();
  }`;

// In a worker: the resource from workerData.token (share()), buffers of workerData.sizes filled with
// patterns, every other one on a stream of the worker's own, each transferred; returns the tokens.
const workerProducer = `
  ${fillPattern}
  const { token, sizes, seed } = workerData;
  const mr = core.DeviceMemoryResource.fromShared(token);
  const stream = new core.Stream();
  const transfers = sizes.map((size, i) => {
    const onStream = i % 2 === 1;
    const buffer = new core.DeviceBuffer({ data: fillPattern(size, seed + i), mr, stream: onStream ? stream : undefined });
    const token = buffer.transfer();
    return { token, onStream, freed: buffer.freed };
  });
  stream[Symbol.dispose]();
  return { className: mr.constructor.name, transfers };`;

// In a worker: claims the buffers of workerData.transfers, checks what each holds and frees it.
const workerConsumerOfTransfers = `
  ${fillPattern}
  const { token, transfers, seed } = workerData;
  const mr = core.DeviceMemoryResource.fromShared(token);
  const same = (a, b) => Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0;
  return transfers.map(({ token, size, onStream }, i) => {
    const buffer = core.DeviceBuffer.fromTransferred(token);
    const seen = {
      size: buffer.size,
      capacityFits: buffer.capacity() >= size,
      sameResource: buffer.mr === mr,
      streamKept: buffer.stream.isDefault() === !onStream,
      intact: same(buffer.toBytes(), fillPattern(size, seed + i)),
    };
    buffer.stream[Symbol.dispose]();
    buffer.free();
    return seen;
  });`;

// What `cannot[name]` declares for this backend: the reason, or undefined when the case runs.
function cannotReason(cannot, name) {
  const declared = cannot[name];
  if (declared === undefined) return undefined;
  if (typeof declared === 'string') return declared;
  return declared.on.includes(backend()) ? declared.why : undefined;
}

/**
 * Runs the conformance suite for the resource `name` (its class name) made by `factory`: for a
 * base resource `factory()`, for an adaptor `factory(upstream)` once per entry of
 * `options.upstreams` (from `upstreams(...)`). See README.md for the options.
 */
export function describeConformance(name, factory, options = {}) {
  const unknown = Object.keys(options.cannot ?? {}).filter((id) => !conformanceCases.includes(id));
  if (unknown.length > 0)
    throw new Error(`describeConformance("${name}"): unknown cases in cannot: ${unknown.join(', ')}`);
  if (options.upstreams === undefined) {
    if (typeof options.hostAccessible !== 'boolean') {
      throw new Error(`describeConformance("${name}"): say whether its memory is hostAccessible (a base resource)`);
    }
    describeResource(name, name, factory, undefined, options);
    return;
  }
  if (options.upstreams.length === 0)
    throw new Error(`describeConformance("${name}"): no upstream can be made on this backend`);
  for (const upstream of options.upstreams)
    describeResource(`${name} over ${upstream.name}`, name, factory, upstream, options);
}

function describeResource(title, className, factory, upstreamEntry, options) {
  describe(`conformance: ${title}`, () => {
    if (options.needsCuda && onHost()) {
      it('needs CUDA: in host mode its construction is CudaError ERR_CUDA_DRIVER_NOT_FOUND', () => {
        expectError(() => factory(), CudaError, 'ERR_CUDA_DRIVER_NOT_FOUND');
      });
      return;
    }
    if (options.needsPageableMemoryAccess && onFake()) {
      let restore;
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
    defineCases(className, factory, upstreamEntry, options);
  });
}

function defineCases(name, factory, upstreamEntry, options) {
  const keep = disposeAfterEach();
  const adaptor = upstreamEntry !== undefined;
  // What must be back where it was once a resource is gone: on the fake driver its live
  // allocations, streams, events and pools; where the upstream counts, the bytes it handed out.
  const upstreamCounts = upstreamEntry?.counts;
  const measurable = onFake() || upstreamCounts !== undefined;
  const measure = (upstream) => {
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
  // One resource (and its upstream) per call, disposed after the test; `gone()` disposes it and,
  // where measurable, asserts it gave back everything it took.
  const make = () => {
    const upstream = adaptor ? keep(upstreamEntry.make()) : undefined;
    const before = measurable ? measure(upstream) : undefined;
    const mr = keep(adaptor ? factory(upstream) : factory());
    const gone = () => {
      mr[Symbol.dispose]();
      if (measurable) expect(measure(upstream)).toEqual(before);
    };
    return { mr, upstream, gone };
  };
  const maxAllocation = options.maxAllocation ?? Number.MAX_SAFE_INTEGER;
  const maxRandomSize = Math.min(options.maxRandomSize ?? 4 * MiB, maxAllocation);
  const smallSize = Math.min(64 * KiB, maxAllocation);
  const counts = options.counts;
  // Where the resource counts what it handed out, nothing is outstanding between cases.
  const settled = (mr) => {
    if (counts !== undefined) expect(counts(mr)).toBe(0);
  };
  const cannot = { ...upstreamEntry?.cannot, ...options.cannot };
  const test = (id, title, fn) => {
    const why = cannotReason(cannot, id);
    if (why === undefined) it(title, fn);
    else it.skip(`${title} [cannot: ${why}]`, () => {});
  };
  const workerModules = { package: options.package ?? packageUnderTest.name };
  const flagsOf = (mr) => coreInternal.native.resourceInfo(coreInternal.resourceHandle(mr, 'mr')).flags;

  test(
    'identity',
    `is ${adaptor ? 'an UpstreamResourceAdaptor' : 'a DeviceMemoryResource'} of its own class on the current device, with the right accessibility`,
    () => {
      const { mr, upstream } = make();
      expect(mr).toBeInstanceOf(DeviceMemoryResource);
      expect(mr instanceof UpstreamResourceAdaptor).toBe(adaptor);
      expect(mr.constructor.name).toBe(name);
      expect(mr.device).toBe(withCuda() ? cuda.getDevice() : 0);
      const flags = flagsOf(mr);
      expect(flags & RESOURCE_DEVICE_ACCESSIBLE).toBe(RESOURCE_DEVICE_ACCESSIBLE);
      const hostAccessible = options.hostAccessible ?? (flagsOf(upstream) & RESOURCE_HOST_ACCESSIBLE) !== 0;
      expect((flags & RESOURCE_HOST_ACCESSIBLE) !== 0).toBe(hostAccessible);
    },
  );

  test(
    'alignment',
    'hands out distinct, non-overlapping, 256-byte aligned memory on the default stream and on a stream',
    () => {
      const { mr, gone } = make();
      const sizes = [1, 4, 8, 8, 255, 256, 257, 1000, KiB, 4 * KiB, 65 * KiB, MiB].filter(
        (size) => size <= maxAllocation,
      );
      onDefaultAndNewStream((stream) => {
        const ptrs = sizes.map((size) => mr.allocate(size, stream));
        expectPlaced(ptrs, sizes);
        ptrs.forEach((ptr, i) => mr.deallocate(ptr, sizes[i], stream));
      });
      settled(mr);
      gone();
    },
  );

  test('zeroBytes', 'allocates 0 bytes as 0n and deallocates (0n, 0), on the default stream and on a stream', () => {
    const { mr, gone } = make();
    onDefaultAndNewStream((stream) => {
      expect(mr.allocate(0, stream)).toBe(0n);
      mr.deallocate(0n, 0, stream);
      const empty = new DeviceBuffer({ size: 0, mr, stream });
      expect([empty.ptr, empty.size]).toEqual([0n, 0]);
      empty.free();
    });
    settled(mr);
    gone();
  });

  test(
    'outOfMemory',
    'impossible requests (1 PiB, 2^53 - 1 bytes) are OutOfMemoryError ERR_RMM_OUT_OF_MEMORY on any stream, and it stays usable',
    () => {
      const { mr, gone } = make();
      onDefaultAndNewStream((stream) => {
        for (const nbytes of [PiB, Number.MAX_SAFE_INTEGER]) {
          const error = expectError(() => mr.allocate(nbytes, stream), OutOfMemoryError, 'ERR_RMM_OUT_OF_MEMORY');
          expect(error).toBeInstanceOf(RMMError);
        }
        settled(mr);
        roundTrip(mr, smallSize, 1, stream);
      });
      settled(mr);
      gone();
    },
  );

  if (options.maxAllocation !== undefined) {
    test(
      'maxAllocation',
      `serves ${options.maxAllocation} bytes (its maximum allocation); one more is OutOfMemoryError`,
      () => {
        const { mr, gone } = make();
        const ptr = mr.allocate(maxAllocation);
        expectPlaced([ptr], [maxAllocation]);
        mr.deallocate(ptr, maxAllocation);
        expectError(() => mr.allocate(maxAllocation + 1), OutOfMemoryError, 'ERR_RMM_OUT_OF_MEMORY');
        settled(mr);
        gone();
      },
    );
  }

  for (const [where, offset] of [
    ['the default stream', 0],
    ['a stream', 1],
  ]) {
    test(
      'randomSequence',
      `a random allocate/free sequence on ${where} (1 B to ${maxRandomSize} B, patterns checked) keeps every byte`,
      () => {
        const { mr, gone } = make();
        const stream = offset === 0 ? undefined : new Stream();
        randomSequence(mr, { seed: conformanceSeed + offset, stream, maxSize: maxRandomSize });
        stream?.[Symbol.dispose]();
        settled(mr);
        gone();
      },
    );
  }

  test(
    'streams',
    'memory freed on one stream is reused on another; what each stream wrote is intact after synchronisation',
    () => {
      const { mr, gone } = make();
      const [a, b] = [new Stream(), new Stream()];
      const kept = new DeviceBuffer({ data: fillPattern(smallSize, 1), mr, stream: a });
      new DeviceBuffer({ data: fillPattern(smallSize, 2), mr, stream: a }).free();
      const reused = new DeviceBuffer({ data: fillPattern(smallSize, 3), mr, stream: b });
      a.synchronize();
      b.synchronize();
      expectBytes(kept.toBytes(), fillPattern(smallSize, 1));
      expectBytes(reused.toBytes(), fillPattern(smallSize, 3));
      // Allocated on one stream, freed on another once the first is done (RMM's different-stream tests).
      const ptr = mr.allocate(smallSize, a);
      a.synchronize();
      mr.deallocate(ptr, smallSize, b);
      b.synchronize();
      kept.free();
      reused.free();
      // Memory freed on a stream that is then destroyed is still there for others.
      const c = new Stream();
      new DeviceBuffer({ data: fillPattern(smallSize, 4), mr, stream: c }).free();
      c[Symbol.dispose]();
      roundTrip(mr, smallSize, 5, a);
      roundTrip(mr, smallSize, 6);
      a[Symbol.dispose]();
      b[Symbol.dispose]();
      settled(mr);
      gone();
    },
  );

  test(
    'streams',
    'allocates, keeps bytes and frees on the default, legacy default and per-thread default streams',
    () => {
      const { mr, gone } = make();
      for (const [i, stream] of [DEFAULT_STREAM, LEGACY_DEFAULT_STREAM, PER_THREAD_DEFAULT_STREAM].entries()) {
        const ptr = mr.allocate(1000, stream);
        expectPlaced([ptr], [1000]);
        mr.deallocate(ptr, 1000, stream);
        roundTrip(mr, smallSize, 10 + i, stream);
      }
      settled(mr);
      gone();
    },
  );

  test(
    'currentResource',
    'works as the current device resource: DeviceBuffers allocate from it; the previous one comes back',
    () => {
      const { mr, gone } = make();
      const previous = setCurrentDeviceResource(mr);
      try {
        expect(getCurrentDeviceResource()).toBe(mr);
        expect(getCurrentDeviceResourceType()).toBe(mr.constructor);
        const data = fillPattern(5000, 7);
        const buffer = new DeviceBuffer({ data });
        expect(buffer.mr).toBe(mr);
        expectBytes(buffer.toBytes(), data);
        buffer.free();
      } finally {
        expect(setCurrentDeviceResource(previous)).toBe(mr);
      }
      expect(getCurrentDeviceResource()).toBe(previous);
      settled(mr);
      gone();
    },
  );

  // Worker threads reach the resource through the registry, as RMM's multithreaded tests do.
  test(
    'workers',
    'two worker threads and the main thread use it at once as the current device resource (patterns checked, counts balance)',
    async () => {
      const { mr, gone } = make();
      const maxSize = Math.min(256 * KiB, maxAllocation);
      const slots = new BigInt64Array(new SharedArrayBuffer(8 * 2));
      const previous = setCurrentDeviceResource(mr);
      try {
        const workers = Promise.all(
          ['stream', 'perThread'].map((streamKind, i) =>
            runInWorker(workerSequence, {
              modules: workerModules,
              workerData: { slots: slots.buffer, seed: conformanceSeed + 10 + i, steps: 80, maxSize, streamKind },
            }),
          ),
        );
        try {
          await startTogether(slots, 2, workers);
          randomSequence(getCurrentDeviceResource(), { seed: conformanceSeed + 12, maxSize, steps: 80 });
        } finally {
          Atomics.store(slots, GO, 1n);
          Atomics.notify(slots, GO);
        }
        for (const seen of await workers) {
          expect(seen).toEqual({
            className: name,
            sameResource: true,
            allocations: seen.frees,
            frees: seen.frees,
            misaligned: 0,
            changed: 0,
          });
          expect(seen.allocations).toBeGreaterThan(0);
        }
      } finally {
        setCurrentDeviceResource(previous);
      }
      settled(mr);
      gone();
    },
  );

  test(
    'workers',
    "a worker frees, on its stream, what the main thread allocates on another while both run, and the other way (RMM's AllocFreeDifferentThreads)",
    async () => {
      const { mr, gone } = make();
      const count = 100;
      const size = Math.min(16 * KiB, maxAllocation);
      const slots = new BigInt64Array(new SharedArrayBuffer(8 * (FIRST_BLOCK + 2 * count)));
      const stream = new Stream();
      const previous = setCurrentDeviceResource(mr);
      try {
        const consumer = runInWorker(workerConsumer, {
          modules: workerModules,
          workerData: { slots: slots.buffer, count, size },
        });
        try {
          await startTogether(slots, 1, consumer);
          const next = random(conformanceSeed + 20);
          for (let i = 0; i < count; i++) {
            const nbytes = randomSize(next, Math.min(MiB, maxAllocation));
            slots[FIRST_BLOCK + 2 * i] = mr.allocate(nbytes, stream);
            slots[FIRST_BLOCK + 2 * i + 1] = BigInt(nbytes);
            stream.synchronize();
            Atomics.store(slots, PUBLISHED, BigInt(i + 1));
            Atomics.notify(slots, PUBLISHED);
          }
        } catch (error) {
          Atomics.store(slots, PUBLISHED, -1n);
          Atomics.notify(slots, PUBLISHED);
          await consumer.catch(() => {}); // it stops on -1
          throw error;
        }
        const theirs = await consumer;
        expectPlaced(theirs, Array(theirs.length).fill(size));
        for (const ptr of theirs) mr.deallocate(ptr, size);
      } finally {
        setCurrentDeviceResource(previous);
        stream[Symbol.dispose]();
      }
      settled(mr);
      gone();
    },
  );

  // share() and transfer(): the same native resource on both threads, buffers moved without a copy.
  const transferSizes = [1, 1000, 4 * KiB, smallSize, 3 * KiB + 1, 256].filter((size) => size <= maxAllocation);
  test(
    'transfer',
    'a worker allocates through share()/fromShared, fills and transfers buffers, and exits; the main thread claims them (bytes, size, capacity, stream, resource, counts) and frees them',
    async () => {
      const { mr, gone } = make();
      const seed = conformanceSeed + 30;
      const { className, transfers } = await runInWorker(workerProducer, {
        modules: workerModules,
        workerData: { token: mr.share(), sizes: transferSizes, seed },
      });
      expect(className).toBe(name);
      const buffers = transfers.map(({ token, onStream, freed }, i) => {
        expect(freed).toBe(true);
        const buffer = DeviceBuffer.fromTransferred(token);
        expect([buffer.size, buffer.mr, buffer.stream.isDefault()]).toEqual([transferSizes[i], mr, !onStream]);
        expect(buffer.capacity()).toBeGreaterThanOrEqual(transferSizes[i]);
        expectBytes(buffer.toBytes(), fillPattern(transferSizes[i], seed + i));
        buffer.stream[Symbol.dispose](); // this thread's Stream over the worker's stream (the buffer keeps it)
        return buffer;
      });
      // The worker's allocations count where the main thread reads the counters.
      const total = transferSizes.reduce((a, b) => a + b, 0);
      if (counts !== undefined) expect(counts(mr)).toBeGreaterThanOrEqual(total);
      for (const buffer of buffers) buffer.free();
      for (const { token } of transfers) expect(DeviceBuffer.reclaim(token)).toBe(false);
      settled(mr);
      gone();
    },
  );

  test(
    'transfer',
    'the main thread transfers buffers (default stream and a stream) to a worker, which claims them through the shared resource, checks and frees them',
    async () => {
      const { mr, gone } = make();
      const seed = conformanceSeed + 40;
      const stream = new Stream();
      const buffers = transferSizes.map(
        (size, i) =>
          new DeviceBuffer({ data: fillPattern(size, seed + i), mr, stream: i % 2 === 1 ? stream : undefined }),
      );
      const transfers = buffers.map((buffer, i) => ({
        token: buffer.transfer(),
        size: transferSizes[i],
        onStream: i % 2 === 1,
      }));
      stream[Symbol.dispose]();
      for (const buffer of buffers) {
        expect(buffer.freed).toBe(true);
        expectError(() => buffer.size, RMMError, 'ERR_RMM_DISPOSED');
      }
      const seen = await runInWorker(workerConsumerOfTransfers, {
        modules: workerModules,
        workerData: { token: mr.share(), transfers, seed },
      });
      expect(seen).toEqual(
        transferSizes.map((size) => ({
          size,
          capacityFits: true,
          sameResource: true,
          streamKept: true,
          intact: true,
        })),
      );
      for (const { token } of transfers) expect(DeviceBuffer.reclaim(token)).toBe(false);
      settled(mr);
      gone();
    },
  );

  const equal = options.equalInstances ?? false;
  test(
    'isEqual',
    `isEqual: true for itself and its wrappers, ${equal} for another instance (both ways), ERR_INVALID_ARG_TYPE for a non-resource`,
    () => {
      const { mr, upstream } = make();
      const other = keep(adaptor ? factory(upstream) : factory());
      expect(mr.isEqual(mr)).toBe(true);
      expect([mr.isEqual(other), other.isEqual(mr)]).toEqual([equal, equal]);
      const buffer = new DeviceBuffer({ size: 8, mr });
      expect(buffer.mr).toBe(mr);
      expect(buffer.mr.isEqual(mr)).toBe(true);
      buffer.free();
      if (adaptor) expect([mr.isEqual(upstream), upstream.isEqual(mr)]).toEqual([false, false]);
      expectError(() => mr.isEqual({}), TypeError, 'ERR_INVALID_ARG_TYPE');
    },
  );

  if (adaptor) {
    const disposable = upstreamEntry.owned;
    test(
      'upstream',
      `upstreamMr and getUpstream() are the upstream passed in${disposable ? '; it keeps working when the upstream is disposed' : ''}`,
      () => {
        const { mr, upstream } = make();
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
      ...(adaptor ? [() => mr.upstreamMr] : []),
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
    if (adaptor && upstreamEntry.owned) upstream[Symbol.dispose]();
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

  if (measurable) {
    const what = onFake() ? 'every driver allocation, stream, event and pool' : 'all it took from its upstream';
    test('givesEverythingBack', `gives back ${what} once disposed and its buffers are freed`, () => {
      const { mr, gone } = make();
      const stream = new Stream();
      roundTrip(mr, smallSize, 1, stream);
      const ptrs = [100, 5000, smallSize].map((size) => [mr.allocate(size, stream), size]);
      for (const [ptr, size] of ptrs) mr.deallocate(ptr, size, stream);
      const kept = new DeviceBuffer({ data: fillPattern(1000, 2), mr, stream });
      stream[Symbol.dispose]();
      mr[Symbol.dispose]();
      kept.free();
      gone();
    });
  }

  test(
    'badArguments',
    'bad sizes (RangeError, TypeError), pointers and streams (TypeError) throw with their codes and allocate nothing',
    () => {
      const { mr, gone } = make();
      for (const size of [-1, 1.5, NaN, Infinity, 2 ** 53]) {
        expectError(() => mr.allocate(size), RangeError, 'ERR_OUT_OF_RANGE', '"nbytes"');
        expectError(() => mr.deallocate(256n, size), RangeError, 'ERR_OUT_OF_RANGE', '"nbytes"');
      }
      for (const size of ['1', 1n, {}, undefined]) {
        expectError(() => mr.allocate(size), TypeError, 'ERR_INVALID_ARG_TYPE', '"nbytes"');
        expectError(() => mr.deallocate(256n, size), TypeError, 'ERR_INVALID_ARG_TYPE', '"nbytes"');
      }
      expectError(() => mr.deallocate(256, 8), TypeError, 'ERR_INVALID_ARG_TYPE', '"ptr"');
      expectError(() => mr.allocate(8, null), TypeError, 'ERR_INVALID_ARG_TYPE', 'stream argument cannot be null');
      expectError(
        () => mr.deallocate(256n, 8, null),
        TypeError,
        'ERR_INVALID_ARG_TYPE',
        'stream argument cannot be null',
      );
      expectError(
        () => new DeviceBuffer({ size: 8, mr, stream: null }),
        TypeError,
        'ERR_INVALID_ARG_TYPE',
        'stream argument cannot be null',
      );
      for (const stream of [{ handle: 0n }, 0n, 'default']) {
        expectError(() => mr.allocate(8, stream), TypeError, 'ERR_INVALID_ARG_TYPE', 'Stream');
        expectError(() => mr.deallocate(256n, 8, stream), TypeError, 'ERR_INVALID_ARG_TYPE', 'Stream');
      }
      settled(mr);
      roundTrip(mr, 1000, 3);
      gone();
    },
  );
}
