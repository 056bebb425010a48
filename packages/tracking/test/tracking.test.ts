import {
  CudaError,
  CudaMemoryResource,
  DeviceBuffer,
  type DeviceMemoryResource,
  getCurrentDeviceResource,
  OutOfMemoryError,
  RMMError,
  setCurrentDeviceResource,
  Stream,
  SystemMemoryResource,
} from '@rmmjs/core';
import { native, resourceHandle } from '@rmmjs/core/internal';
import { PoolMemoryResource } from '@rmmjs/pool';
import { TrackingResourceAdaptor } from '@rmmjs/tracking';
import {
  disposeAfterEach,
  expectBytes,
  fakeCuda,
  onFake,
  onHost,
  pattern,
  restoreCurrentDeviceResourceAfterEach,
  thrown,
} from '@rmmjs/test-helpers';
import { beforeEach, describe, expect, it } from 'vitest';
import { availableUpstreams } from './upstreams.js';

const TEN_MIB = 10 << 20;
const LOG_CRITICAL = 5;

const byAddress = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/** What getOutstandingAllocationsStr() prints without stacks for these allocations. */
function report(allocations: Array<[bigint, number]>): string {
  return [...allocations]
    .sort(([a], [b]) => byAddress(a, b))
    .map(([ptr, nbytes]) => `0x${ptr.toString(16)}: ${nbytes} B\n`)
    .join('');
}

/** Runs fn with the debug logger quiet (the error lines that some tests provoke on purpose). */
function quietly<T>(fn: () => T): T {
  const level = native.getLogLevel();
  native.setLogLevel(LOG_CRITICAL);
  try {
    return fn();
  } finally {
    native.setLogLevel(level);
  }
}

describe.each(availableUpstreams())('TrackingResourceAdaptor over $name', ({ make }) => {
  let upstream: DeviceMemoryResource;
  const keep = disposeAfterEach();
  beforeEach(() => {
    upstream = keep(make());
  });

  it('RMM test: ten 1000-byte buffers, free five; a second tracker on top and two more', () => {
    const mr = new TrackingResourceAdaptor(upstream, { captureStacks: true });
    const previous = setCurrentDeviceResource(mr);
    try {
      const buffers = Array.from({ length: 10 }, () => new DeviceBuffer({ size: 1000 }));
      for (let i = 9; i > 0; i -= 2) buffers.splice(i, 1)[0].free();
      expect(mr.getAllocatedBytes()).toBe(5000);

      const mr2 = new TrackingResourceAdaptor(mr, { captureStacks: true });
      setCurrentDeviceResource(mr2);
      for (let i = 0; i < 2; i++) buffers.push(new DeviceBuffer({ size: 1000 }));
      expect(mr2.getAllocatedBytes()).toBe(2000);
      expect(mr.getAllocatedBytes()).toBe(7000);
      expect(mr2.getOutstandingAllocationCount()).toBe(2);
      expect(mr.getOutstandingAllocationCount()).toBe(7);
      expect(mr.getOutstandingAllocationsStr().length).toBeGreaterThan(0);

      for (const buffer of buffers) buffer.free();
      expect(mr2.getAllocatedBytes()).toBe(0);
      expect(mr.getAllocatedBytes()).toBe(0);
      expect(mr2.getOutstandingAllocationsStr()).toBe('');
      expect(mr.getOutstandingAllocationsStr()).toBe('');
    } finally {
      setCurrentDeviceResource(previous);
    }
  });

  it('RMM test: allocate and deallocate 8 MiB', () => {
    const mr = new TrackingResourceAdaptor(upstream);
    const ptr = mr.allocate(1 << 23);
    expect(mr.getAllocatedBytes()).toBe(1 << 23);
    mr.deallocate(ptr, 1 << 23);
    expect(mr.getAllocatedBytes()).toBe(0);
  });

  it('RMM test Empty: nothing outstanding', () => {
    const mr = new TrackingResourceAdaptor(upstream);
    expect(mr.getAllocatedBytes()).toBe(0);
    expect(mr.getOutstandingAllocationCount()).toBe(0);
    expect(mr.getOutstandingAllocationsStr()).toBe('');
  });

  it('RMM test AllFreed: ten 10 MiB allocations, all freed', () => {
    const mr = new TrackingResourceAdaptor(upstream);
    const ptrs = Array.from({ length: 10 }, () => mr.allocate(TEN_MIB));
    expect(new Set(ptrs).size).toBe(10);
    expect(mr.getAllocatedBytes()).toBe(10 * TEN_MIB);
    for (const ptr of ptrs) mr.deallocate(ptr, TEN_MIB);
    expect(mr.getOutstandingAllocationCount()).toBe(0);
    expect(mr.getAllocatedBytes()).toBe(0);
  });

  it.each([true, false])(
    'RMM test AllocationsLeft (captureStacks %s): every other of ten 10 MiB freed',
    (captureStacks) => {
      const mr = new TrackingResourceAdaptor(upstream, { captureStacks });
      const ptrs = Array.from({ length: 10 }, () => mr.allocate(TEN_MIB));
      for (let i = 0; i < 10; i += 2) mr.deallocate(ptrs[i], TEN_MIB);
      expect(mr.getOutstandingAllocationCount()).toBe(5);
      expect(mr.getAllocatedBytes()).toBe(5 * TEN_MIB);
      const left = ptrs.filter((_, i) => i % 2 === 1);
      const text = mr.getOutstandingAllocationsStr();
      if (captureStacks) {
        const first = [...left].sort(byAddress)[0];
        expect(text.startsWith(`0x${first.toString(16)}: ${TEN_MIB} B : callstack:\n#0 in `)).toBe(true);
        expect(text.match(/ : callstack:\n/g)?.length).toBe(5);
      } else {
        expect(text).toBe(report(left.map((ptr) => [ptr, TEN_MIB])));
      }
      for (const ptr of left) mr.deallocate(ptr, TEN_MIB);
      expect(mr.getAllocatedBytes()).toBe(0);
    },
  );

  it('RMM test MultiTracking: a tracker on a tracker counts what passes through it', () => {
    const mr = new TrackingResourceAdaptor(upstream, { captureStacks: true });
    const buffers = Array.from({ length: 10 }, () => new DeviceBuffer({ size: TEN_MIB, mr }));
    expect(mr.getOutstandingAllocationCount()).toBe(10);
    const innerMr = new TrackingResourceAdaptor(mr);
    for (let i = 0; i < 5; i++) buffers.push(new DeviceBuffer({ size: TEN_MIB, mr: innerMr }));
    expect(mr.getOutstandingAllocationCount()).toBe(15);
    expect(innerMr.getOutstandingAllocationCount()).toBe(5);
    expect(mr.getAllocatedBytes()).toBe(15 * TEN_MIB);
    expect(innerMr.getAllocatedBytes()).toBe(5 * TEN_MIB);
    expect(mr.getOutstandingAllocationsStr().length).toBeGreaterThan(0);
    for (const buffer of buffers) buffer.free();
    expect(mr.getOutstandingAllocationCount()).toBe(0);
    expect(innerMr.getOutstandingAllocationCount()).toBe(0);
    expect(mr.getAllocatedBytes()).toBe(0);
    expect(innerMr.getAllocatedBytes()).toBe(0);
  });

  it('RMM test NegativeInnerTracking: the inner tracker frees what the outer one allocated', () => {
    const mr = new TrackingResourceAdaptor(upstream);
    const ptrs = Array.from({ length: 10 }, () => mr.allocate(TEN_MIB));
    const innerMr = new TrackingResourceAdaptor(mr);
    for (let i = 0; i < 5; i++) ptrs.push(innerMr.allocate(TEN_MIB));
    expect(mr.getOutstandingAllocationCount()).toBe(15);
    expect(innerMr.getOutstandingAllocationCount()).toBe(5);
    quietly(() => {
      for (const ptr of ptrs) innerMr.deallocate(ptr, TEN_MIB);
    });
    expect(mr.getOutstandingAllocationCount()).toBe(0);
    expect(innerMr.getOutstandingAllocationCount()).toBe(0);
    expect(mr.getAllocatedBytes()).toBe(0);
  });

  it('RMM test UntrackedDeallocationDoesNotUnderflowAllocatedBytes', () => {
    const mr = new TrackingResourceAdaptor(upstream);
    const ptr = mr.allocate(TEN_MIB);
    const innerMr = new TrackingResourceAdaptor(mr);
    quietly(() => innerMr.deallocate(ptr, TEN_MIB));
    expect(innerMr.getAllocatedBytes()).toBe(0);
    expect(innerMr.getOutstandingAllocationCount()).toBe(0);
    expect(mr.getAllocatedBytes()).toBe(0);
    expect(mr.getOutstandingAllocationCount()).toBe(0);
  });

  it('RMM test DeallocWrongBytes: the tracked size wins', () => {
    const mr = new TrackingResourceAdaptor(upstream);
    const ptrs = Array.from({ length: 10 }, () => mr.allocate(TEN_MIB));
    quietly(() => {
      for (const ptr of ptrs) mr.deallocate(ptr, TEN_MIB / 2);
    });
    expect(mr.getOutstandingAllocationCount()).toBe(0);
    expect(mr.getAllocatedBytes()).toBe(0);
  });

  it('counts requested bytes and prints "<ptr>: <bytes> B" lines in address order', () => {
    const mr = new TrackingResourceAdaptor(upstream);
    const sizes = [1000, 1, 12345, 256, 257];
    const allocations = sizes.map((nbytes): [bigint, number] => [mr.allocate(nbytes), nbytes]);
    expect(mr.getAllocatedBytes()).toBe(13859);
    expect(mr.getOutstandingAllocationsStr()).toBe(report(allocations));
    const [[ptr, nbytes]] = allocations.splice(2, 1);
    mr.deallocate(ptr, nbytes);
    expect(mr.getAllocatedBytes()).toBe(13859 - nbytes);
    expect(mr.getOutstandingAllocationsStr()).toBe(report(allocations));
    for (const [p, n] of allocations) mr.deallocate(p, n);
    expect(mr.getOutstandingAllocationsStr()).toBe('');
  });

  it('0 bytes: 0n, nothing tracked', () => {
    const mr = new TrackingResourceAdaptor(upstream);
    expect(mr.allocate(0)).toBe(0n);
    expect(mr.getOutstandingAllocationCount()).toBe(0);
    mr.deallocate(0n, 0);
    expect(mr.getAllocatedBytes()).toBe(0);
  });

  it('streams: allocations on a stream are tracked and freed on it', () => {
    const mr = new TrackingResourceAdaptor(upstream);
    const stream = new Stream();
    const ptrs = [mr.allocate(4096, stream), mr.allocate(100, stream)];
    const buffer = new DeviceBuffer({ data: pattern(3000, 7), stream, mr });
    expect(mr.getAllocatedBytes()).toBe(7196);
    expectBytes(buffer.toBytes(stream), pattern(3000, 7));
    buffer.free();
    mr.deallocate(ptrs[0], 4096, stream);
    mr.deallocate(ptrs[1], 100, stream);
    stream.synchronize();
    expect(mr.getAllocatedBytes()).toBe(0);
    stream[Symbol.dispose]();
  });

  // upstreamMr, getUpstream() and the upstream's lifetime are the conformance suite's 'upstream' case.
  it('still tracks once the upstream is disposed (the adaptor keeps it alive)', () => {
    const mr = new TrackingResourceAdaptor(upstream);
    upstream[Symbol.dispose]();
    const buffer = new DeviceBuffer({ data: pattern(1000, 3), mr });
    expect(mr.getAllocatedBytes()).toBe(1000);
    expectBytes(buffer.toBytes(), pattern(1000, 3));
    buffer.free();
    expect(mr.getAllocatedBytes()).toBe(0);
  });
});

describe('TrackingResourceAdaptor', () => {
  restoreCurrentDeviceResourceAfterEach();

  it('as the current resource, tracks the DeviceBuffers made through it', () => {
    const mr = new TrackingResourceAdaptor(getCurrentDeviceResource());
    setCurrentDeviceResource(mr);
    const buffer = new DeviceBuffer({ size: 1000 });
    expect(mr.getOutstandingAllocationsStr()).toBe(report([[buffer.ptr, 1000]]));
    buffer.free();
    expect(mr.getOutstandingAllocationsStr()).toBe('');
  });

  it("passes on its upstream's flags; with captureStacks it may run JavaScript when allocating", () => {
    const CALLS_JS = 0x4;
    const upstream = getCurrentDeviceResource();
    const flagsOf = (mr: DeviceMemoryResource) => native.resourceInfo(resourceHandle(mr, 'mr')).flags;
    expect(flagsOf(upstream) & CALLS_JS).toBe(0);
    expect(flagsOf(new TrackingResourceAdaptor(upstream))).toBe(flagsOf(upstream));
    expect(flagsOf(new TrackingResourceAdaptor(upstream, { captureStacks: true }))).toBe(flagsOf(upstream) | CALLS_JS);
  });

  it('bad arguments', () => {
    const upstream = getCurrentDeviceResource();
    const cases: Array<[() => unknown, ErrorConstructor, string, string]> = [
      [() => new TrackingResourceAdaptor({} as never), TypeError, 'ERR_INVALID_ARG_TYPE', '"upstream"'],
      [() => new TrackingResourceAdaptor(undefined as never), TypeError, 'ERR_INVALID_ARG_TYPE', '"upstream"'],
      [() => new TrackingResourceAdaptor(upstream, null as never), TypeError, 'ERR_INVALID_ARG_TYPE', '"options"'],
      [() => new TrackingResourceAdaptor(upstream, true as never), TypeError, 'ERR_INVALID_ARG_TYPE', '"options"'],
      [
        () => new TrackingResourceAdaptor(upstream, { captureStacks: 1 as never }),
        TypeError,
        'ERR_INVALID_ARG_TYPE',
        '"options.captureStacks"',
      ],
    ];
    for (const [fn, Class, code, text] of cases) {
      const error = thrown(fn);
      expect(error).toBeInstanceOf(Class);
      expect(error.code).toBe(code);
      expect(error.message).toContain(text);
    }
    const mr = new TrackingResourceAdaptor(upstream);
    expect(thrown(() => mr.allocate(-1)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => mr.allocate('1' as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => mr.deallocate(1 as never, 1)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(mr.getAllocatedBytes()).toBe(0);
  });

  it('a disposed upstream or adaptor', () => {
    const upstream = onHost() ? new SystemMemoryResource() : new CudaMemoryResource();
    upstream[Symbol.dispose]();
    const error = thrown(() => new TrackingResourceAdaptor(upstream));
    expect(error).toBeInstanceOf(RMMError);
    expect(error.code).toBe('ERR_RMM_DISPOSED');
    const mr = new TrackingResourceAdaptor(getCurrentDeviceResource());
    mr[Symbol.dispose]();
    expect(thrown(() => mr.getAllocatedBytes()).code).toBe('ERR_RMM_DISPOSED');
    expect(thrown(() => mr.getOutstandingAllocationsStr()).code).toBe('ERR_RMM_DISPOSED');
    expect(thrown(() => mr.allocate(10)).code).toBe('ERR_RMM_DISPOSED');
  });

  // A pool hands the block just freed on a stream to the next request of its size on that stream,
  // whatever the backend (a C heap does too, but not every heap: not ASan's, for one).
  it('an address freed behind its back and handed out again: "pointer is already tracked"', () => {
    using upstream = new PoolMemoryResource(getCurrentDeviceResource(), { initialPoolSize: 1 << 20 });
    const mr = new TrackingResourceAdaptor(upstream);
    const ptr = mr.allocate(1000);
    upstream.deallocate(ptr, 1000);
    const error = thrown(() => mr.allocate(1000));
    expect(error).toBeInstanceOf(RMMError);
    expect(error.code).toBe('ERR_RMM_LOGIC');
    expect(error.message).toBe('pointer is already tracked');
    expect(mr.getAllocatedBytes()).toBe(1000);
    // Forgetting the stale entry passes the (already freed) pointer upstream, which refuses it.
    expect(thrown(() => mr.deallocate(ptr, 1000)).code).toBe('ERR_RMM_LOGIC');
    expect(mr.getAllocatedBytes()).toBe(0);
    expect(mr.getOutstandingAllocationsStr()).toBe('');
    // The duplicate went back to the pool: the block is free once, and handed out again.
    expect(upstream.allocate(1000)).toBe(ptr);
    upstream.deallocate(ptr, 1000);
  });

  it.runIf(onFake())('an upstream allocation failure: OutOfMemoryError, nothing tracked, nothing leaked', () => {
    const live = fakeCuda.stats().liveAllocations;
    const mr = new TrackingResourceAdaptor(new CudaMemoryResource(), { captureStacks: true });
    fakeCuda.failNext('cuMemAlloc_v2', 1, 'CUDA_ERROR_OUT_OF_MEMORY');
    const error = thrown(() => mr.allocate(1000));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.code).toBe('ERR_RMM_OUT_OF_MEMORY');
    expect(mr.getAllocatedBytes()).toBe(0);
    expect(mr.getOutstandingAllocationsStr()).toBe('');
    expect(fakeCuda.stats().liveAllocations).toBe(live);
  });

  it.runIf(onFake())('an upstream free failure: CudaError, and the pointer stays tracked until a free works', () => {
    const upstream = new CudaMemoryResource();
    const mr = new TrackingResourceAdaptor(upstream);
    const live = fakeCuda.stats().liveAllocations;
    const ptr = mr.allocate(1000);
    fakeCuda.failNext('cuMemFree_v2', 1, 'CUDA_ERROR_ILLEGAL_ADDRESS');
    const error = thrown(() => mr.deallocate(ptr, 1000));
    expect(error).toBeInstanceOf(CudaError);
    expect(error.code).toBe('ERR_CUDA');
    expect(error.cudaErrorName).toBe('CUDA_ERROR_ILLEGAL_ADDRESS');
    expect(mr.getAllocatedBytes()).toBe(1000);
    expect(mr.getOutstandingAllocationsStr()).toBe(report([[ptr, 1000]]));
    expect(fakeCuda.stats().liveAllocations).toBe(live + 1);
    mr.deallocate(ptr, 1000);
    expect(mr.getAllocatedBytes()).toBe(0);
    expect(fakeCuda.stats().liveAllocations).toBe(live);
  });

  it.runIf(onFake())('no leak: buffers that outlive the adaptor handle go back to the driver', () => {
    const live = fakeCuda.stats().liveAllocations;
    let mr: TrackingResourceAdaptor | undefined = new TrackingResourceAdaptor(new CudaMemoryResource(), {
      captureStacks: true,
    });
    const buffers = Array.from({ length: 20 }, (_, i) => new DeviceBuffer({ size: 1000 + i, mr }));
    expect(fakeCuda.stats().liveAllocations).toBe(live + 20);
    expect(mr.getAllocatedBytes()).toBe(20 * 1000 + 190);
    mr[Symbol.dispose]();
    mr = undefined;
    for (const buffer of buffers) buffer.free();
    expect(fakeCuda.stats().liveAllocations).toBe(live);
  });
});
