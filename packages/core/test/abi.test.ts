import { createRequire } from 'node:module';
import {
  DEFAULT_STREAM,
  DeviceBuffer,
  DeviceMemoryResource,
  OutOfMemoryError,
  RMMError,
  Stream,
  cuda,
  getCurrentDeviceResource,
  setCurrentDeviceResource,
} from '@rmmjs/core';
import { abiVersion, coreApi, resourceHandle } from '@rmmjs/core/addon';
import { native, type ResourceHandle } from '@rmmjs/core/internal';
import { expectBytes, onFake, pattern, runWorker, thrown } from '@rmmjs/test-helpers';
import { afterEach, describe, expect, it } from 'vitest';
import { CountingResourceAdaptor, counting } from './counting-adaptor.js';
import { probe } from './probe.js';
import { availableCases } from './resource-table.js';

interface Consumer {
  builtAgainst: string;
  init(api: unknown): string;
  roundTripCurrent(nbytes: number): boolean;
  roundTripWith(handle: unknown, nbytes: number): boolean;
  typeNameOfCurrent(): string;
  failingAllocation(nbytes: number): [number, string];
  streamId(handle: bigint): bigint;
  /** [driver_version, driver_size, RMMJS_DRIVER_HAS(core, cuMemPoolImportPointer)] */
  driverLayout(): [number, number, boolean];
  /** [status, message] of stream_check_device(handle, device) */
  streamCheckDevice(handle: bigint, device: number): [number, string];
  /** [status, message, owner]: an external that owns `bytes`, tracked with track_owner */
  trackOwner(bytes: number): [number, string, object];
  untrackOwner(owner: object): void;
  /** [status, message] of track_owner with a NULL object */
  trackNull(): [number, string];
  /** What the owners' reclaim gave back so far. */
  reclaimedBytes(): number;
  /** [initStatus, initMessage, allocateStatus, allocateMessage, destroyed, headerUntouched] */
  initWithOps(
    size: number | null,
    checked: boolean,
    withAllocate: boolean,
  ): [number, string, number, string, number, boolean];
}

const require = createRequire(import.meta.url);
const consumer = require('../build/test-addons/rmmjs_test_consumer/build/Release/rmmjs_test_consumer.node') as Consumer;
const consumer11 =
  require('../build/test-addons/rmmjs_test_consumer_1_1/build/Release/rmmjs_test_consumer_1_1.node') as Consumer;

// Core's full collection, from the module that @rmmjs/core runs (it exports it nowhere).
const { collectGarbage } = (await import(new URL('../dist/reclaim.js', import.meta.url).href)) as {
  collectGarbage: () => boolean;
};

const OK = 0;
const OUT_OF_MEMORY = 1;
const LOGIC = 2;
const INVALID_ARGUMENT = 4;

describe('the C ABI, used by a plain C addon', () => {
  it('accepts core API table 1.x', () => {
    expect(consumer.builtAgainst).toBe('1.4');
    expect(consumer.init(native.coreApi)).toBe(native.abiVersion);
    expect(native.abiVersion).toBe('1.4');
    expect(abiVersion).toBe('1.4');
  });

  it('allocates through the current device resource', () => {
    expect(consumer.roundTripCurrent(10000)).toBe(true);
    expect(consumer.typeNameOfCurrent()).toBe(getCurrentDeviceResource().constructor.name);
  });

  it.each(availableCases())('allocates through a $name handle from JS, and sees it when current', ({ make, name }) => {
    const mr: DeviceMemoryResource = make();
    expect(consumer.roundTripWith(resourceHandle(mr, 'mr'), 5000)).toBe(true);
    const previous = setCurrentDeviceResource(mr);
    expect(consumer.typeNameOfCurrent()).toBe(name);
    expect(consumer.roundTripCurrent(3000)).toBe(true);
    setCurrentDeviceResource(previous);
    mr[Symbol.dispose]();
  });

  it('stream ids tell streams apart, also where a handle could be reused', () => {
    const a = new Stream();
    const b = new Stream();
    const idA = consumer.streamId(a.handle);
    expect(consumer.streamId(a.handle)).toBe(idA);
    expect(consumer.streamId(b.handle)).not.toBe(idA);
    expect(consumer.streamId(DEFAULT_STREAM.handle)).toBe(consumer.streamId(DEFAULT_STREAM.handle));
    a[Symbol.dispose]();
    b[Symbol.dispose]();
  });

  it('reads the layout of the driver table: version 3, 45 entry points of version 1, 3 for host registration, 10 for CUDA IPC and cuStreamGetCtx', () => {
    expect(consumer.driverLayout()).toEqual([3, 59 * 8, true]);
  });

  it('stream_check_device: the default streams always, a created stream in its own device only (RMMJS_ERR_INVALID_ARGUMENT)', () => {
    for (const handle of [0n, 1n, 2n]) expect(consumer.streamCheckDevice(handle, 0)).toEqual([OK, '']);
    const stream = new Stream();
    expect(consumer.streamCheckDevice(stream.handle, 0)).toEqual([OK, '']);
    if (onFake()) {
      expect(consumer.streamCheckDevice(stream.handle, 1)).toEqual([
        INVALID_ARGUMENT,
        'the stream belongs to device 0 and cannot order the memory of a resource of device 1 (use a Stream made while device 1 is current)',
      ]);
      cuda.setDevice(1);
      const other = new Stream();
      cuda.setDevice(0);
      expect(consumer.streamCheckDevice(other.handle, 1)).toEqual([OK, '']);
      expect(consumer.streamCheckDevice(other.handle, 0)[0]).toBe(INVALID_ARGUMENT);
      other[Symbol.dispose]();
    }
    stream[Symbol.dispose]();
  });

  it('sees failures as status codes with a message', () => {
    const [status, message] = consumer.failingAllocation(2 ** 50);
    expect(status).toBe(OUT_OF_MEMORY);
    expect(message).toContain(String(2 ** 50));
  });
});

// A third party's owner of memory, tracked as DeviceBuffers are (ABI 1.4): its bytes count as
// external memory, and an owner the collector found unreachable is reclaimed before its finalizer.
describe('track_owner and untrack_owner', () => {
  const MiB = 1 << 20;
  const external = () => Math.round(probe.externalMemory() / MiB);

  it('counts the bytes as external memory until untracked; reclaims an owner that was dropped', () => {
    const before = external();
    const [status, message, owner] = consumer.trackOwner(64 * MiB);
    expect([status, message]).toEqual([OK, '']);
    expect(external() - before).toBe(64);
    consumer.untrackOwner(owner);
    expect(external() - before).toBe(0);

    const reclaimedBefore = consumer.reclaimedBytes();
    for (let i = 0; i < 4; i++) consumer.trackOwner(16 * MiB); // dropped at once
    expect(external() - before).toBe(64);
    collectGarbage();
    expect(native.reclaimCollected()).toBe(64 * MiB);
    expect(consumer.reclaimedBytes() - reclaimedBefore).toBe(64 * MiB);
    expect(external() - before).toBe(0);
    expect(native.reclaimCollected()).toBe(0); // each once
  });

  it('refuses a NULL object', () => {
    expect(consumer.trackNull()).toEqual([
      INVALID_ARGUMENT,
      'track_owner: env, object, reclaim and out must not be NULL',
    ]);
  });
});

describe('an addon built against ABI 1.1', () => {
  it('takes the 1.4 table (larger than the one it was built with) and works', () => {
    expect(consumer11.builtAgainst).toBe('1.1');
    expect(consumer11.init(coreApi)).toBe('1.4');
    expect(consumer11.roundTripCurrent(4096)).toBe(true);
    const stream = new Stream();
    expect(consumer11.streamId(stream.handle)).toBe(consumer.streamId(stream.handle));
    stream[Symbol.dispose]();
  });
});

describe('ops tables', () => {
  // sizeof(rmmjs_resource_ops) of ABI 1.0 to 1.2 on 64-bit platforms: a size_t, type_name and
  // five function pointers.
  const SIZE_1_0 = 7 * 8;
  const tooSmall = (size: number) =>
    `rmmjs_resource_ops.size is ${size}, smaller than the ${SIZE_1_0} bytes of ABI 1.0's table: set it to sizeof(rmmjs_resource_ops)`;

  it('resource_init_checked accepts the 1.0 layout and a larger table of a newer minor', () => {
    expect(consumer.initWithOps(SIZE_1_0, true, true)).toEqual([
      OK,
      '',
      OUT_OF_MEMORY,
      'probe: no memory here',
      1,
      false,
    ]);
    expect(consumer.initWithOps(SIZE_1_0 + 40, true, true)).toEqual([
      OK,
      '',
      OUT_OF_MEMORY,
      'probe: no memory here',
      1,
      false,
    ]);
  });

  it.each([0, 8, SIZE_1_0 - 8])(
    'resource_init_checked refuses a table of %i bytes and leaves the header alone',
    (size) => {
      expect(consumer.initWithOps(size, true, true)).toEqual([
        INVALID_ARGUMENT,
        `resource_init_checked: ${tooSmall(size)}`,
        OK,
        '',
        0,
        true,
      ]);
    },
  );

  it('resource_init_checked refuses no table, and a table without allocate', () => {
    expect(consumer.initWithOps(null, true, true)).toEqual([
      INVALID_ARGUMENT,
      'resource_init_checked: rmmjs_resource_ops is NULL',
      OK,
      '',
      0,
      true,
    ]);
    expect(consumer.initWithOps(SIZE_1_0, true, false)).toEqual([
      INVALID_ARGUMENT,
      'resource_init_checked: rmmjs_resource_ops of ProbeResource: allocate, deallocate and destroy must not be NULL',
      OK,
      '',
      0,
      true,
    ]);
  });

  it("1.0's resource_init makes a refused table a resource that fails, and never calls its destroy", () => {
    expect(consumer.initWithOps(8, false, true)).toEqual([
      OK,
      '',
      LOGIC,
      `resource_init refused this resource: ${tooSmall(8)}`,
      0,
      false,
    ]);
    // A good table still works through it.
    expect(consumer.initWithOps(SIZE_1_0, false, true)).toEqual([
      OK,
      '',
      OUT_OF_MEMORY,
      'probe: no memory here',
      1,
      false,
    ]);
  });
});

describe('a resource implemented in plain C (test/addon/counting_adaptor.c)', () => {
  const refcount = (mr: DeviceMemoryResource) => probe.refcount(resourceHandle(mr, 'mr'));
  const made: DeviceMemoryResource[] = [];
  const keep = <T extends DeviceMemoryResource>(mr: T): T => {
    made.push(mr);
    return mr;
  };
  afterEach(() => {
    for (const mr of made.splice(0).reverse()) mr[Symbol.dispose]();
  });

  describe.each(availableCases())('over $name', ({ make }) => {
    it('forwards allocations, counts them, and passes on the upstream device and flags', () => {
      const base = keep(make());
      const mr = keep(new CountingResourceAdaptor(base));
      expect(mr.upstreamMr).toBe(base);
      expect(native.resourceInfo(resourceHandle(mr, 'mr'))).toMatchObject({
        typeName: 'CountingResourceAdaptor',
        device: base.device,
        flags: native.resourceInfo(resourceHandle(base, 'base')).flags,
      });
      const a = mr.allocate(1000);
      const b = mr.allocate(3000);
      expect(a).not.toBe(0n);
      expect(b).not.toBe(a);
      expect(a % 256n).toBe(0n);
      expect(mr.counts()).toEqual({ allocations: 2, deallocations: 0, bytesOutstanding: 4000 });
      mr.deallocate(a, 1000);
      expect(mr.counts()).toEqual({ allocations: 2, deallocations: 1, bytesOutstanding: 3000 });
      mr.deallocate(b, 3000);
      expect(mr.counts()).toEqual({ allocations: 2, deallocations: 2, bytesOutstanding: 0 });
      expect(mr.allocate(0)).toBe(0n); // core answers 0 bytes without calling the resource
      expect(mr.counts().allocations).toBe(2);
    });

    it('holds its upstream until it goes', () => {
      const base = keep(make());
      const before = refcount(base);
      const mr = new CountingResourceAdaptor(base);
      expect(refcount(base)).toBe(before + 1);
      expect(refcount(mr)).toBe(1);
      mr[Symbol.dispose]();
      expect(refcount(base)).toBe(before);
    });

    it("passes the upstream's failure through unchanged, counting nothing", () => {
      const base = keep(make());
      const mr = keep(new CountingResourceAdaptor(base));
      const expected = thrown(() => base.allocate(2 ** 50));
      const error = thrown(() => mr.allocate(2 ** 50));
      expect(error).toBeInstanceOf(OutOfMemoryError);
      expect(error.code).toBe('ERR_RMM_OUT_OF_MEMORY');
      expect(error.message).toBe(expected.message);
      expect(mr.counts()).toEqual({ allocations: 0, deallocations: 0, bytesOutstanding: 0 });
    });

    it('stacks over itself, and backs DeviceBuffers', () => {
      const base = keep(make());
      const inner = keep(new CountingResourceAdaptor(base));
      const outer = keep(new CountingResourceAdaptor(inner));
      const data = pattern(5000, 7);
      const buffer = new DeviceBuffer({ data, mr: outer });
      expectBytes(buffer.toBytes(), data);
      expect(outer.counts()).toEqual({ allocations: 1, deallocations: 0, bytesOutstanding: buffer.capacity() });
      expect(inner.counts()).toEqual(outer.counts());
      buffer.free();
      expect(inner.counts()).toEqual({ allocations: 1, deallocations: 1, bytesOutstanding: 0 });
      expect(outer.counts()).toEqual(inner.counts());
    });
  });

  it('is the current device resource for JavaScript, C callers and workers alike', async () => {
    const mr = keep(new CountingResourceAdaptor(getCurrentDeviceResource()));
    const previous = setCurrentDeviceResource(mr);
    try {
      expect(getCurrentDeviceResource()).toBe(mr);
      expect(consumer.typeNameOfCurrent()).toBe('CountingResourceAdaptor');
      expect(consumer.roundTripCurrent(3000)).toBe(true);
      expect(mr.counts()).toEqual({ allocations: 1, deallocations: 1, bytesOutstanding: 0 });
      // A worker sees the same native resource (as a plain DeviceMemoryResource until it loads the
      // addon), allocates through it, and stacks its own adaptor on it.
      const seen = await runWorker(new URL('./workers/stacks-counting-adaptor.js', import.meta.url));
      expect(seen).toEqual([
        'DeviceMemoryResource',
        [
          { allocations: 2, deallocations: 1, bytesOutstanding: 2048 },
          { allocations: 1, deallocations: 0, bytesOutstanding: 2048 },
        ],
      ]);
      expect(mr.counts()).toEqual({ allocations: 2, deallocations: 2, bytesOutstanding: 0 });
    } finally {
      setCurrentDeviceResource(previous);
    }
  });

  it('refuses what is not an upstream, a disposed one, and counts of another resource', () => {
    const notAResource = thrown(() => counting.create({} as ResourceHandle));
    expect(notAResource).toBeInstanceOf(TypeError);
    expect(notAResource.code).toBe('ERR_INVALID_ARG_TYPE');
    expect(notAResource.message).toBe("upstream must be a DeviceMemoryResource's handle");

    const base = getCurrentDeviceResource();
    const disposed = keep(new CountingResourceAdaptor(base));
    const disposedHandle = resourceHandle(disposed, 'mr');
    disposed[Symbol.dispose]();
    const error = thrown(() => counting.create(disposedHandle));
    expect(error).toBeInstanceOf(RMMError);
    expect(error.code).toBe('ERR_RMM_DISPOSED');
    expect(error.message).toBe('upstream was disposed and cannot be used');

    const other = thrown(() => counting.counts(resourceHandle(base, 'mr')));
    expect(other).toBeInstanceOf(TypeError);
    expect(other.code).toBe('ERR_INVALID_ARG_TYPE');
    expect(other.message).toBe('mr must be a CountingResourceAdaptor');
  });
});
