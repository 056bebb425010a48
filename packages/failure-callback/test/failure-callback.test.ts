import {
  CudaError,
  CudaMemoryResource,
  DEFAULT_STREAM,
  DeviceBuffer,
  type DeviceMemoryResource,
  OutOfMemoryError,
  RMMError,
  Stream,
  UpstreamResourceAdaptor,
  getCurrentDeviceResource,
  setCurrentDeviceResource,
} from '@rmmjs/core';
import { CallbackMemoryResource } from '@rmmjs/callback';
import { FailureCallbackResourceAdaptor } from '@rmmjs/failure-callback';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import {
  expectBytes,
  fakeCuda,
  onFake,
  pattern,
  restoreCurrentDeviceResourceAfterEach,
  thrown,
} from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

const previous = restoreCurrentDeviceResourceAfterEach();

/** A callback that answers `answers` in turn (then false) and records its calls. */
function answering(...answers: boolean[]) {
  const calls: number[] = [];
  const callback = (nbytes: number) => {
    calls.push(nbytes);
    return answers[calls.length - 1] ?? false;
  };
  return { calls, callback };
}

/** An upstream with nothing to give: every allocation exceeds its limit. */
const exhausted = () => new LimitingResourceAdaptor(getCurrentDeviceResource(), 0);

/** A CallbackMemoryResource whose allocate always throws what `make` returns. */
function throwing(make: () => unknown) {
  const thrownErrors: unknown[] = [];
  const mr = new CallbackMemoryResource(
    () => {
      const error = make();
      thrownErrors.push(error);
      throw error;
    },
    () => {},
  );
  return { mr, thrownErrors };
}

describe('FailureCallbackResourceAdaptor', () => {
  it('RMM test RetryAllocationOnce: true once, then false: called twice, the OutOfMemoryError stands', () => {
    const { calls, callback } = answering(true);
    const mr = new FailureCallbackResourceAdaptor(exhausted(), callback);
    expect(calls).toEqual([]);
    const error = thrown(() => mr.allocate(1 << 20));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.code).toBe('ERR_RMM_OUT_OF_MEMORY');
    expect(error.message).toBe('Exceeded memory limit (failed to allocate 1024.000000 KiB)');
    expect(calls).toEqual([1048576, 1048576]);
  });

  it('RMM test ForwardsAlignment: sizes, pointers and streams pass through', () => {
    const base = getCurrentDeviceResource();
    const seen: unknown[][] = [];
    const upstream = new CallbackMemoryResource(
      (nbytes, stream) => {
        const ptr = base.allocate(nbytes, stream);
        seen.push(['allocate', nbytes, stream.handle, ptr]);
        return ptr;
      },
      (ptr, nbytes, stream) => {
        seen.push(['deallocate', ptr, nbytes, stream.handle]);
        base.deallocate(ptr, nbytes, stream);
      },
    );
    const { calls, callback } = answering();
    const mr = new FailureCallbackResourceAdaptor(upstream, callback);
    const stream = new Stream();
    const ptr = mr.allocate(1024, stream);
    mr.deallocate(ptr, 1024, stream);
    expect(seen).toEqual([
      ['allocate', 1024, stream.handle, ptr],
      ['deallocate', ptr, 1024, stream.handle],
    ]);
    expect(calls).toEqual([]);
    stream[Symbol.dispose]();
  });

  it('RMM python test_failure_callback_resource_adaptor', () => {
    const { mr: failing, thrownErrors } = throwing(() => new OutOfMemoryError('Intentional allocation failure'));
    const { calls, callback } = answering(true);
    const mr = new FailureCallbackResourceAdaptor(failing, callback);
    setCurrentDeviceResource(mr);
    const error = thrown(() => new DeviceBuffer({ size: 256 }));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.message).toBe('Intentional allocation failure');
    expect(thrownErrors).toHaveLength(2);
    expect(error).toBe(thrownErrors[1]);
    expect(calls).toEqual([256, 256]);
  });

  it('RMM python test_failure_callback_resource_adaptor_error', () => {
    const { mr: failing } = throwing(() => new OutOfMemoryError('Intentional allocation failure'));
    const myError = new RMMError('MyError');
    const mr = new FailureCallbackResourceAdaptor(failing, () => {
      throw myError;
    });
    setCurrentDeviceResource(mr);
    const error = thrown(() => new DeviceBuffer({ size: 256 }));
    expect(error).toBe(myError);
    expect(error.message).toBe('MyError');
  });

  it('a retry after the callback freed memory succeeds', () => {
    const limited = new LimitingResourceAdaptor(getCurrentDeviceResource(), 8192);
    let cache: DeviceBuffer | undefined = new DeviceBuffer({ size: 8192, mr: limited });
    const calls: number[] = [];
    const mr = new FailureCallbackResourceAdaptor(limited, (nbytes) => {
      calls.push(nbytes);
      if (cache === undefined) return false;
      cache.free();
      cache = undefined;
      return true;
    });
    const buffer = new DeviceBuffer({ data: pattern(5000, 3), mr });
    expect(calls).toEqual([5000]);
    expect(limited.getAllocatedBytes()).toBe(5120);
    expectBytes(buffer.toBytes(), pattern(5000, 3));
    buffer.free();
    expect(limited.getAllocatedBytes()).toBe(0);
  });

  it('retries for as long as the callback says so', () => {
    const { calls, callback } = answering(true, true, true, true);
    const mr = new FailureCallbackResourceAdaptor(exhausted(), callback);
    expect(thrown(() => mr.allocate(100))).toBeInstanceOf(OutOfMemoryError);
    expect(calls).toEqual([100, 100, 100, 100, 100]);
  });

  it('the callback may drop the last reference to its own adaptor', () => {
    const own: { mr?: FailureCallbackResourceAdaptor } = {};
    const calls: number[] = [];
    own.mr = new FailureCallbackResourceAdaptor(exhausted(), (nbytes) => {
      calls.push(nbytes);
      own.mr?.[Symbol.dispose]();
      return calls.length < 3; // retries after the last handle went: the call keeps it alive
    });
    const mr = own.mr;
    expect(thrown(() => mr.allocate(700)).message).toBe('Exceeded memory limit (failed to allocate 700.000000 B)');
    expect(calls).toEqual([700, 700, 700]);
    expect(thrown(() => mr.allocate(700)).code).toBe('ERR_RMM_DISPOSED');
  });

  it('deallocate passes through; the upstream is kept alive and exposed', () => {
    const upstream = new LimitingResourceAdaptor(getCurrentDeviceResource(), 1 << 20);
    const mr = new FailureCallbackResourceAdaptor(upstream, () => false);
    expect(mr).toBeInstanceOf(UpstreamResourceAdaptor);
    expect(mr.upstreamMr).toBe(upstream);
    expect(mr.getUpstream()).toBe(upstream);
    expect(mr.isEqual(mr)).toBe(true);
    expect(mr.isEqual(upstream)).toBe(false);
    upstream[Symbol.dispose]();
    const ptr = mr.allocate(1000);
    expect(ptr % 256n).toBe(0n);
    expect(mr.upstreamMr.constructor).toBe(LimitingResourceAdaptor);
    mr.deallocate(ptr, 1000);
    expect(mr.allocate(0)).toBe(0n);
  });
});

// Upstream failures: [what, the upstream, is it out of memory].
const failures: [string, () => { upstream: DeviceMemoryResource; thrownErrors?: unknown[] }, boolean][] = [
  ['native out of memory (LimitingResourceAdaptor)', () => ({ upstream: exhausted() }), true],
  [
    'an OutOfMemoryError thrown by JavaScript',
    () => {
      const { mr, thrownErrors } = throwing(() => new OutOfMemoryError('from JavaScript'));
      return { upstream: mr, thrownErrors };
    },
    true,
  ],
  [
    '0n returned by a CallbackMemoryResource',
    () => ({
      upstream: new CallbackMemoryResource(
        () => 0n,
        () => {},
      ),
    }),
    true,
  ],
  [
    'a TypeError thrown by JavaScript',
    () => {
      const { mr, thrownErrors } = throwing(() => new TypeError('not memory'));
      return { upstream: mr, thrownErrors };
    },
    false,
  ],
  [
    'an RMMError thrown by JavaScript',
    () => {
      const { mr, thrownErrors } = throwing(() => new RMMError('logic'));
      return { upstream: mr, thrownErrors };
    },
    false,
  ],
  [
    'a string thrown by JavaScript',
    () => {
      const { mr, thrownErrors } = throwing(() => 'a string');
      return { upstream: mr, thrownErrors };
    },
    false,
  ],
  [
    'a bad return value of a CallbackMemoryResource',
    () => ({
      upstream: new CallbackMemoryResource(
        () => 'x' as never,
        () => {},
      ),
    }),
    false,
  ],
];

describe.each(failures)('upstream failure: %s', (_, make, outOfMemory) => {
  it(
    outOfMemory ? 'asks the callback; false lets the same error through' : 'passes through without calling back',
    () => {
      const { upstream, thrownErrors } = make();
      const plain = thrown(() => upstream.allocate(300));
      const { calls, callback } = answering(true);
      const mr = new FailureCallbackResourceAdaptor(upstream, callback);
      const error = thrown(() => mr.allocate(300));
      expect(calls).toEqual(outOfMemory ? [300, 300] : []);
      if (thrownErrors !== undefined) expect(error).toBe(thrownErrors[thrownErrors.length - 1]);
      else {
        expect(error.constructor).toBe(plain.constructor);
        expect(error.code).toBe(plain.code);
        expect(error.message).toBe(plain.message);
      }
    },
  );
});

describe.runIf(onFake())('driver failures (fake driver)', () => {
  it('CUDA_ERROR_OUT_OF_MEMORY asks the callback; a retry that works succeeds', () => {
    const { calls, callback } = answering(true);
    const mr = new FailureCallbackResourceAdaptor(new CudaMemoryResource(), callback);
    fakeCuda.failNext('cuMemAlloc_v2', 1, 'CUDA_ERROR_OUT_OF_MEMORY');
    const buffer = new DeviceBuffer({ data: pattern(1000, 9), mr });
    expect(calls).toEqual([1000]);
    expectBytes(buffer.toBytes(), pattern(1000, 9));
    buffer.free();
  });

  it('another CUDA error passes through without calling back', () => {
    const { calls, callback } = answering(true);
    const mr = new FailureCallbackResourceAdaptor(new CudaMemoryResource(), callback);
    fakeCuda.failNext('cuMemAlloc_v2', 1, 'CUDA_ERROR_INVALID_VALUE');
    const error = thrown(() => mr.allocate(1000));
    expect(error).toBeInstanceOf(CudaError);
    expect(error.cudaErrorName).toBe('CUDA_ERROR_INVALID_VALUE');
    expect(calls).toEqual([]);
  });

  it('leaves nothing allocated', () => {
    const before = fakeCuda.stats().liveAllocations;
    const limited = new LimitingResourceAdaptor(new CudaMemoryResource(), 64 * 1024);
    const held: DeviceBuffer[] = [];
    const mr = new FailureCallbackResourceAdaptor(limited, () => {
      const oldest = held.shift();
      oldest?.free();
      return oldest !== undefined;
    });
    for (let i = 0; i < 100; i++) held.push(new DeviceBuffer({ size: 8192, mr }));
    expect(held).toHaveLength(8);
    expect(fakeCuda.stats().liveAllocations).toBe(before + 8);
    for (const buffer of held) buffer.free();
    expect(fakeCuda.stats().liveAllocations).toBe(before);
    expect(limited.getAllocatedBytes()).toBe(0);
  });
});

// The native layers an error crosses: [what, build(callback) -> the resource to allocate from].
const stacks: [string, (callback: (nbytes: number) => boolean) => DeviceMemoryResource][] = [
  ['the adaptor over a limiter', (callback) => new FailureCallbackResourceAdaptor(exhausted(), callback)],
  [
    'a limiter over the adaptor over a CallbackMemoryResource that returns 0n',
    (callback) =>
      new LimitingResourceAdaptor(
        new FailureCallbackResourceAdaptor(
          new CallbackMemoryResource(
            () => 0n,
            () => {},
          ),
          callback,
        ),
        1 << 20,
      ),
  ],
  [
    'a limiter over the adaptor over a limiter over a CallbackMemoryResource that throws OutOfMemoryError',
    (callback) =>
      new LimitingResourceAdaptor(
        new FailureCallbackResourceAdaptor(
          new LimitingResourceAdaptor(throwing(() => new OutOfMemoryError('below')).mr, 1 << 20),
          callback,
        ),
        1 << 20,
      ),
  ],
];

describe.each(stacks)('through %s', (_, build) => {
  it.each([
    ['an Error', new Error('MyError')],
    ['an OutOfMemoryError', new OutOfMemoryError('MyError')],
    ['a string', 'MyError'],
    ['undefined', undefined],
  ])('%s the callback throws reaches the caller unchanged', (__, error) => {
    const mr = build(() => {
      throw error;
    });
    expect(thrown(() => mr.allocate(4096))).toBe(error);
    expect(thrown(() => new DeviceBuffer({ size: 4096, mr }))).toBe(error);
    setCurrentDeviceResource(mr);
    expect(thrown(() => new DeviceBuffer({ size: 4096 }))).toBe(error);
  });

  it.each([
    ['a number', 1, 'Received type number (1)'],
    ['a string', 'yes', "Received type string ('yes')"],
    ['undefined', undefined, 'Received undefined'],
    ['null', null, 'Received null'],
    ['an object', {}, 'Received an instance of Object'],
  ])('%s returned by the callback is a TypeError', (__, value, received) => {
    const mr = build(() => value as boolean);
    const error = thrown(() => new DeviceBuffer({ size: 4096, mr }));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
    expect(error.message).toBe(`The value returned by "callback" must be of type boolean. ${received}`);
  });
});

describe('the error after false is the original one', () => {
  it('even when the callback caught other errors of callbacks meanwhile', () => {
    const { mr: failing, thrownErrors } = throwing(() => new OutOfMemoryError('the original'));
    const other = throwing(() => new Error('caught inside the callback')).mr;
    const calls: number[] = [];
    const mr = new FailureCallbackResourceAdaptor(failing, (nbytes) => {
      calls.push(nbytes);
      expect(thrown(() => new DeviceBuffer({ size: 10, mr: other })).message).toBe('caught inside the callback');
      return false;
    });
    const error = thrown(() => new DeviceBuffer({ size: 512, mr }));
    expect(error).toBe(thrownErrors[0]);
    expect(calls).toEqual([512]);
  });

  it('with the same message for a native failure, also when the callback failed allocations meanwhile', () => {
    const upstream = exhausted();
    const mr = new FailureCallbackResourceAdaptor(upstream, () => {
      expect(thrown(() => upstream.allocate(7)).message).toBe('Exceeded memory limit (failed to allocate 7.000000 B)');
      return false;
    });
    const error = thrown(() => mr.allocate(3000));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.message).toBe('Exceeded memory limit (failed to allocate 2.929688 KiB)');
  });
});

describe('bad arguments', () => {
  it.each([
    ['undefined', undefined],
    ['null', null],
    ['an object', {}],
    ['a number', 1],
  ])('%s as the upstream is a TypeError', (_, value) => {
    const error = thrown(() => new FailureCallbackResourceAdaptor(value as never, () => true));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
    expect(error.message).toContain('The "upstream" argument must be an instance of DeviceMemoryResource');
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a boolean', true],
    ['an object', {}],
  ])('%s as the callback is a TypeError', (_, value) => {
    const error = thrown(() => new FailureCallbackResourceAdaptor(getCurrentDeviceResource(), value as never));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
    expect(error.message).toContain('The "callback" argument must be of type function');
  });

  it('a disposed upstream is ERR_RMM_DISPOSED', () => {
    const upstream = new LimitingResourceAdaptor(getCurrentDeviceResource(), 100);
    upstream[Symbol.dispose]();
    expect(thrown(() => new FailureCallbackResourceAdaptor(upstream, () => true)).code).toBe('ERR_RMM_DISPOSED');
  });

  it('the stream argument is checked before anything runs', () => {
    const { calls, callback } = answering(true);
    const mr = new FailureCallbackResourceAdaptor(exhausted(), callback);
    expect(thrown(() => mr.allocate(10, null as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => mr.allocate(-1)).code).toBe('ERR_OUT_OF_RANGE');
    expect(calls).toEqual([]);
    expect(mr.allocate(0, DEFAULT_STREAM)).toBe(0n);
  });
});
