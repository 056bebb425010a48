import {
  CudaMemoryResource,
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
} from '@rmmjs/core';
import { CallbackMemoryResource } from '@rmmjs/callback';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { expectBytes, fakeCuda, onFake, pattern, thrown, withCuda } from '@rmmjs/test-helpers';
import { afterEach, describe, expect, it } from 'vitest';

type Call = ['allocate', number, Stream, bigint] | ['deallocate', bigint, number, Stream];

/** A CallbackMemoryResource over the current device resource that records every call. */
function recording() {
  const base = getCurrentDeviceResource();
  const calls: Call[] = [];
  const mr = new CallbackMemoryResource(
    (nbytes, stream) => {
      const ptr = base.allocate(nbytes, stream);
      calls.push(['allocate', nbytes, stream, ptr]);
      return ptr;
    },
    (ptr, nbytes, stream) => {
      calls.push(['deallocate', ptr, nbytes, stream]);
      base.deallocate(ptr, nbytes, stream);
    },
  );
  return { base, calls, mr };
}

const previous = getCurrentDeviceResource();
afterEach(() => {
  setCurrentDeviceResource(previous);
});

describe('CallbackMemoryResource', () => {
  it('RMM test: the callbacks are invoked (10 MiB)', () => {
    const { calls, mr } = recording();
    const size = 10 * 1024 * 1024;
    const ptr = mr.allocate(size);
    expect(calls).toEqual([['allocate', 10485760, DEFAULT_STREAM, ptr]]);
    expect(calls[0][2]).toBe(DEFAULT_STREAM);
    expect(ptr).not.toBe(0n);
    expect(ptr % 256n).toBe(0n);
    mr.deallocate(ptr, size);
    expect(calls).toHaveLength(2);
    expect(calls[1]).toEqual(['deallocate', ptr, 10485760, DEFAULT_STREAM]);
  });

  it('RMM test: logging callbacks', () => {
    const base = getCurrentDeviceResource();
    const output: string[] = [];
    const mr = new CallbackMemoryResource(
      (size, stream) => {
        output.push(`Allocating ${size} bytes`);
        return base.allocate(size, stream);
      },
      (ptr, size, stream) => {
        output.push(`Deallocating ${size} bytes`);
        base.deallocate(ptr, size, stream);
      },
    );
    const size = 10 * 1024 * 1024;
    mr.deallocate(mr.allocate(size), size);
    expect(output.join('\n')).toBe('Allocating 10485760 bytes\nDeallocating 10485760 bytes');
  });

  it('RMM python test_custom_mr: the current device resource backs DeviceBuffers', () => {
    const base = withCuda() ? new CudaMemoryResource() : getCurrentDeviceResource();
    const output: string[] = [];
    const mr = new CallbackMemoryResource(
      (size, stream) => {
        output.push(`Allocating ${size} bytes`);
        return base.allocate(size, stream);
      },
      (ptr, size, stream) => {
        output.push(`Deallocating ${size} bytes`);
        base.deallocate(ptr, size, stream);
      },
    );
    setCurrentDeviceResource(mr);
    expect(getCurrentDeviceResource()).toBe(mr);
    expect(getCurrentDeviceResourceType()).toBe(CallbackMemoryResource);
    new DeviceBuffer({ size: 256 }).free();
    expect(output).toEqual(['Allocating 256 bytes', 'Deallocating 256 bytes']);
  });

  it('RMM python test_device_buffer_with_mr: only buffers given the resource use it', () => {
    const { calls, mr } = recording();
    new DeviceBuffer({ size: 10 }).free();
    expect(calls).toHaveLength(0);
    const buffer = new DeviceBuffer({ size: 256, mr });
    expect(calls.map((call) => call.slice(0, 2))).toEqual([['allocate', 256]]);
    const ptr = buffer.ptr;
    expect(ptr).toBe(calls[0][3]);
    mr[Symbol.dispose](); // the buffer keeps the native resource (and its functions) alive
    buffer.free();
    expect(calls).toEqual([
      ['allocate', 256, DEFAULT_STREAM, ptr],
      ['deallocate', calls[0][3], 256, DEFAULT_STREAM],
    ]);
  });

  it("a DeviceBuffer's bytes live in the memory the callback returned", () => {
    const { calls, mr } = recording();
    const data = pattern(5000, 7);
    const buffer = new DeviceBuffer({ data, mr });
    expect(buffer.ptr).toBe(calls[0][3]);
    expect(buffer.size).toBe(5000);
    expectBytes(buffer.toBytes(), data);
    const copy = buffer.copy();
    expect(calls.filter((call) => call[0] === 'allocate')).toHaveLength(2);
    expectBytes(copy.toBytes(), data);
    buffer.free();
    copy.free();
    expect(calls.map((call) => call[0])).toEqual(['allocate', 'allocate', 'deallocate', 'deallocate']);
  });

  it('the callbacks receive the stream as a Stream', () => {
    const { calls, mr } = recording();
    const stream = new Stream();
    const a = mr.allocate(100, stream);
    const b = mr.allocate(100, LEGACY_DEFAULT_STREAM);
    const c = mr.allocate(100, PER_THREAD_DEFAULT_STREAM);
    // The stream each call received: the 3rd item of an allocation, the 4th of a deallocation.
    const streams = () => calls.map((call) => (call[0] === 'allocate' ? call[2] : call[3]));
    expect(streams()[0]).toBeInstanceOf(Stream);
    expect(streams()[0].handle).toBe(stream.handle);
    expect(streams()[0].equals(stream)).toBe(true);
    expect(streams()[1]).toBe(LEGACY_DEFAULT_STREAM);
    expect(streams()[2]).toBe(PER_THREAD_DEFAULT_STREAM);
    mr.deallocate(a, 100, stream);
    mr.deallocate(b, 100, LEGACY_DEFAULT_STREAM);
    mr.deallocate(c, 100);
    expect(streams()[3].handle).toBe(stream.handle);
    expect(streams()[4]).toBe(LEGACY_DEFAULT_STREAM);
    expect(streams()[5]).toBe(DEFAULT_STREAM);
    const buffer = new DeviceBuffer({ size: 64, mr, stream });
    expect(streams()[6].handle).toBe(stream.handle);
    buffer.free();
    expect(streams()[7].handle).toBe(stream.handle);
    stream[Symbol.dispose]();
  });

  it('zero bytes call no callback', () => {
    const { calls, mr } = recording();
    expect(mr.allocate(0)).toBe(0n);
    mr.deallocate(0n, 0);
    const empty = new DeviceBuffer({ size: 0, mr });
    expect(empty.ptr).toBe(0n);
    empty.free();
    expect(calls).toEqual([]);
  });

  it('is a DeviceMemoryResource, not an adaptor, equal only to itself', () => {
    const { mr } = recording();
    const other = recording().mr;
    expect(mr).toBeInstanceOf(DeviceMemoryResource);
    expect(mr).not.toBeInstanceOf(UpstreamResourceAdaptor);
    expect(mr.isEqual(mr)).toBe(true);
    expect(mr.isEqual(other)).toBe(false);
    expect(String(mr)).toBe(`CallbackMemoryResource(device ${mr.device})`);
  });

  it('callbacks may allocate through other callback resources (re-entrant)', () => {
    const inner = recording();
    const outerCalls: number[] = [];
    const outer = new CallbackMemoryResource(
      (nbytes, stream) => {
        outerCalls.push(nbytes);
        return inner.mr.allocate(nbytes, stream);
      },
      (ptr, nbytes, stream) => inner.mr.deallocate(ptr, nbytes, stream),
    );
    const ptr = outer.allocate(3000);
    expect(ptr).toBe(inner.calls[0][3]);
    outer.deallocate(ptr, 3000);
    expect(outerCalls).toEqual([3000]);
    expect(inner.calls.map((call) => call[0])).toEqual(['allocate', 'deallocate']);
  });

  it('a callback may drop the last reference to its own resource', () => {
    const base = getCurrentDeviceResource();
    const freed: number[] = [];
    const own: { mr?: CallbackMemoryResource } = {};
    const mr = new CallbackMemoryResource(
      (nbytes, stream) => {
        own.mr?.[Symbol.dispose]();
        return base.allocate(nbytes, stream);
      },
      (ptr, nbytes, stream) => {
        freed.push(nbytes);
        base.deallocate(ptr, nbytes, stream);
      },
    );
    own.mr = mr;
    const ptr = mr.allocate(1000); // the resource goes when this call returns, not during it
    expect(ptr % 256n).toBe(0n);
    expect(thrown(() => mr.allocate(1)).code).toBe('ERR_RMM_DISPOSED');
    base.deallocate(ptr, 1000);
    // A buffer holds its own reference: dropping the handle inside deallocate is fine too.
    own.mr = undefined;
    const again = new CallbackMemoryResource(
      (nbytes, stream) => base.allocate(nbytes, stream),
      (p, nbytes, stream) => {
        own.mr?.[Symbol.dispose]();
        freed.push(nbytes);
        base.deallocate(p, nbytes, stream);
      },
    );
    own.mr = again;
    new DeviceBuffer({ size: 300, mr: again }).free();
    expect(freed).toEqual([300]);
  });

  it('a disposed resource refuses calls; buffers keep it alive', () => {
    const { calls, mr } = recording();
    const buffer = new DeviceBuffer({ size: 512, mr });
    mr[Symbol.dispose]();
    expect(thrown(() => mr.allocate(1)).code).toBe('ERR_RMM_DISPOSED');
    buffer.free();
    expect(calls.map((call) => call[0])).toEqual(['allocate', 'deallocate']);
  });
});

describe('what allocate returns', () => {
  const fakePointer = 0x7f0000001000n;
  const make = (value: unknown) => {
    const freed: bigint[] = [];
    const mr = new CallbackMemoryResource(
      () => value as bigint,
      (ptr) => {
        freed.push(ptr);
      },
    );
    return { mr, freed };
  };

  it.each([
    ['a bigint', fakePointer, fakePointer],
    ['a number', 4096, 4096n],
    ['the largest safe number', Number.MAX_SAFE_INTEGER, 9007199254740991n],
    ['the largest pointer', 2n ** 64n - 1n, 18446744073709551615n],
  ])('%s is the pointer', (_, value, expected) => {
    const { mr, freed } = make(value);
    const ptr = mr.allocate(10);
    expect(ptr).toBe(expected);
    mr.deallocate(ptr, 10);
    expect(freed).toEqual([expected]);
  });

  it.each([
    ['a string', '4096', "Received type string ('4096')"],
    ['undefined', undefined, 'Received undefined'],
    ['null', null, 'Received null'],
    ['an object', { ptr: 1n }, 'Received an instance of Object'],
    ['a boolean', true, 'Received type boolean (true)'],
  ])('%s is a TypeError naming the callback', (_, value, received) => {
    const error = thrown(() => make(value).mr.allocate(10));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
    expect(error.message).toBe(
      `The value returned by the "allocate" callback must be of type bigint or number. ${received}`,
    );
  });

  it.each([
    ['a negative number', -4096],
    ['a fraction', 4096.5],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['an unsafe integer', 2 ** 53],
    ['a negative bigint', -1n],
    ['a bigint of 65 bits', 2n ** 64n],
  ])('%s is a RangeError', (_, value) => {
    const error = thrown(() => make(value).mr.allocate(10));
    expect(error).toBeInstanceOf(RangeError);
    expect(error.code).toBe('ERR_OUT_OF_RANGE');
    expect(error.message).toMatch(
      /^The value returned by the "allocate" callback is out of range\. It must be a pointer/,
    );
  });

  it.each([
    ['0n', 0n],
    ['0', 0],
  ])('%s for bytes > 0 is an OutOfMemoryError', (_, value) => {
    const { mr } = make(value);
    const error = thrown(() => mr.allocate(1536));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.code).toBe('ERR_RMM_OUT_OF_MEMORY');
    expect(error.message).toBe('CallbackMemoryResource: allocate returned 0n (failed to allocate 1.500000 KiB)');
    const limited = new LimitingResourceAdaptor(mr, 1 << 20);
    expect(thrown(() => new DeviceBuffer({ size: 10, mr: limited }))).toBeInstanceOf(OutOfMemoryError);
    expect(limited.getAllocatedBytes()).toBe(0);
  });

  it('what deallocate returns is ignored', () => {
    const mr = new CallbackMemoryResource(
      () => fakePointer,
      () => 'ignored' as unknown as void,
    );
    expect(mr.deallocate(mr.allocate(1), 1)).toBeUndefined();
  });
});

// The stacks an error must cross: the native layers between the caller and the callback.
const stacks: [
  string,
  (mr: CallbackMemoryResource) => { top: DeviceMemoryResource; limiters: { getAllocatedBytes(): number }[] },
][] = [
  ['the resource itself', (mr) => ({ top: mr, limiters: [] })],
  [
    'a LimitingResourceAdaptor over it',
    (mr) => {
      const limiter = new LimitingResourceAdaptor(mr, 1 << 20);
      return { top: limiter, limiters: [limiter] };
    },
  ],
  [
    'two LimitingResourceAdaptors over it',
    (mr) => {
      const inner = new LimitingResourceAdaptor(mr, 1 << 20);
      const outer = new LimitingResourceAdaptor(inner, 1 << 20);
      return { top: outer, limiters: [outer, inner] };
    },
  ],
];

class CustomError extends RMMError {}
const errors: [string, () => unknown][] = [
  ['an Error', () => new Error('My alloc error')],
  ['a TypeError', () => new TypeError('My alloc error')],
  ['an OutOfMemoryError', () => new OutOfMemoryError('My alloc error')],
  ['a subclass of RMMError', () => new CustomError('My alloc error', { code: 'ERR_CUSTOM' })],
  ['a string', () => 'My alloc error'],
  ['a plain object', () => ({ reason: 'My alloc error' })],
  ['null', () => null],
  ['undefined', () => undefined],
];

describe.each(stacks)('RMM python test_callback_mr_error: an error thrown by a callback, through %s', (_, stack) => {
  // Throws `error` from allocate while `failing.allocate` is true, and from deallocate while
  // `failing.deallocate` is; otherwise allocates from the current device resource.
  function throwing(error: unknown) {
    const base = getCurrentDeviceResource();
    const failing = { allocate: true, deallocate: false };
    const mr = new CallbackMemoryResource(
      (nbytes, stream) => {
        if (failing.allocate) throw error;
        return base.allocate(nbytes, stream);
      },
      (ptr, nbytes, stream) => {
        if (failing.deallocate) throw error;
        base.deallocate(ptr, nbytes, stream);
      },
    );
    return { base, failing, ...stack(mr) };
  }

  it.each(errors)('%s from allocate reaches the caller unchanged', (__, make) => {
    const error = make();
    const { top, limiters, failing } = throwing(error);
    // The limiters roll back: they count only the live buffers' bytes (expected).
    const expectSame = (caught: unknown, expected = 0) => {
      expect(caught).toBe(error);
      for (const limiter of limiters) expect(limiter.getAllocatedBytes()).toBe(expected);
    };
    expectSame(thrown(() => top.allocate(1000)));
    expectSame(thrown(() => new DeviceBuffer({ size: 1000, mr: top })));
    setCurrentDeviceResource(top);
    expectSame(thrown(() => new DeviceBuffer({ data: pattern(100, 1) })));
    // Growing a buffer allocates anew (RMM's device_buffer::resize).
    failing.allocate = false;
    const buffer = new DeviceBuffer({ data: pattern(100, 2), mr: top });
    failing.allocate = true;
    expectSame(
      thrown(() => buffer.resize(5000)),
      256,
    );
    expect(buffer.size).toBe(100);
    expectBytes(buffer.toBytes(), pattern(100, 2));
    buffer.free();
    expectSame(error);
  });

  it.each(errors)('%s from deallocate reaches the caller unchanged', (__, make) => {
    const error = make();
    const { base, top, failing } = throwing(error);
    failing.allocate = false;
    const ptr = top.allocate(1000);
    failing.deallocate = true;
    expect(thrown(() => top.deallocate(ptr, 1000))).toBe(error);
    const buffer = new DeviceBuffer({ size: 2000, mr: top });
    expect(thrown(() => buffer.free())).toBe(error);
    // The callback did not free them: they are still allocated, and freeing again works.
    expect(buffer.freed).toBe(false);
    failing.deallocate = false;
    top.deallocate(ptr, 1000);
    buffer.free();
    expect(buffer.freed).toBe(true);
  });

  it.each(errors)('%s from deallocating the old memory undoes a resize', (__, make) => {
    const error = make();
    const { top, limiters, failing } = throwing(error);
    failing.allocate = false;
    const buffer = new DeviceBuffer({ data: pattern(100, 3), mr: top });
    const ptr = buffer.ptr;
    let failures = 1; // the old memory's deallocate throws; the new memory's goes back
    Object.defineProperty(failing, 'deallocate', { get: () => failures-- > 0 });
    expect(thrown(() => buffer.resize(5000))).toBe(error);
    expect([buffer.ptr, buffer.size, buffer.capacity()]).toEqual([ptr, 100, 100]);
    for (const limiter of limiters) expect(limiter.getAllocatedBytes()).toBe(256);
    expectBytes(buffer.toBytes(), pattern(100, 3));
    buffer.resize(5000);
    expectBytes(buffer.toBytes().subarray(0, 100), pattern(100, 3));
    for (const limiter of limiters) expect(limiter.getAllocatedBytes()).toBe(5120);
    buffer.free();
    for (const limiter of limiters) expect(limiter.getAllocatedBytes()).toBe(0);
  });
});

describe('bad arguments', () => {
  const noop = () => 0n;
  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a number', 1],
    ['a string', 'allocate'],
    ['an object', {}],
  ])('%s as a callback is a TypeError naming it', (_, value) => {
    for (const [args, name] of [
      [[value, noop], 'allocate'],
      [[noop, value], 'deallocate'],
    ] as const) {
      const error = thrown(() => new CallbackMemoryResource(...(args as unknown as [typeof noop, typeof noop])));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
      expect(error.message).toContain(`The "${name}" argument must be of type function`);
    }
  });

  it('bad allocate and deallocate arguments fail before any callback runs', () => {
    const { calls, mr } = recording();
    expect(thrown(() => mr.allocate(-1)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => mr.allocate(1.5)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => mr.allocate('1' as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => mr.allocate(1, null as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => mr.deallocate(1 as never, 1)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => mr.deallocate(4096n, -1)).code).toBe('ERR_OUT_OF_RANGE');
    expect(calls).toEqual([]);
  });
});

describe.runIf(onFake())('over the fake driver', () => {
  it('an OutOfMemoryError of the driver inside the callback reaches the caller unchanged', () => {
    const base = new CudaMemoryResource();
    let seen: unknown;
    const mr = new CallbackMemoryResource(
      (nbytes, stream) => {
        try {
          return base.allocate(nbytes, stream);
        } catch (error) {
          seen = error;
          throw error;
        }
      },
      (ptr, nbytes, stream) => base.deallocate(ptr, nbytes, stream),
    );
    fakeCuda.failNext('cuMemAlloc_v2', 1, 'CUDA_ERROR_OUT_OF_MEMORY');
    const error = thrown(() => new DeviceBuffer({ size: 4096, mr: new LimitingResourceAdaptor(mr, 1 << 20) }));
    expect(error).toBe(seen);
    expect(error).toBeInstanceOf(OutOfMemoryError);
    new DeviceBuffer({ size: 4096, mr }).free();
  });

  it('leaves nothing allocated', () => {
    const before = fakeCuda.stats().liveAllocations;
    const base = new CudaMemoryResource();
    const mr = new CallbackMemoryResource(
      (nbytes, stream) => base.allocate(nbytes, stream),
      (ptr, nbytes, stream) => base.deallocate(ptr, nbytes, stream),
    );
    const buffers = Array.from({ length: 50 }, (_, i) => new DeviceBuffer({ data: pattern(1000 + i, i), mr }));
    expect(fakeCuda.stats().liveAllocations).toBe(before + 50);
    buffers.forEach((buffer, i) => {
      expectBytes(buffer.toBytes(), pattern(1000 + i, i));
      buffer.free();
    });
    expect(fakeCuda.stats().liveAllocations).toBe(before);
  });
});

const twoDevices = withCuda() && cuda.getDeviceCount() >= 2;
describe.runIf(twoDevices)('a DeviceBuffer on a stream of another device', () => {
  it("calls the resource with the buffer's device current; copies run in the stream's context", () => {
    const seen: number[] = [];
    const mr = new CallbackMemoryResource(
      (nbytes, stream) => {
        seen.push(cuda.getDevice());
        return getCurrentDeviceResource().allocate(nbytes, stream);
      },
      (ptr, nbytes, stream) => {
        seen.push(cuda.getDevice());
        getCurrentDeviceResource().deallocate(ptr, nbytes, stream);
      },
    );
    cuda.setDevice(1);
    const stream = new Stream();
    cuda.setDevice(0);
    // Bytes live on each device, where the driver can tell (the fake one).
    const live = () => (onFake() ? fakeCuda.stats().liveDeviceBytes : [0, 0]);
    const before = live();
    const buffer = new DeviceBuffer({ data: pattern(1 << 20, 5), mr, stream });
    if (onFake()) expect([live()[0] - before[0], live()[1] - before[1]]).toEqual([1 << 20, 0]);
    buffer.resize(2 << 20, stream); // a new allocation, a copy on the stream, the old one freed
    expectBytes(buffer.toBytes(stream).subarray(0, 1 << 20), pattern(1 << 20, 5));
    buffer.free();
    stream[Symbol.dispose]();
    expect(seen).toEqual([0, 0, 0, 0]);
    expect(live()).toEqual(before);
    expect(cuda.getDevice()).toBe(0);
  });
});
