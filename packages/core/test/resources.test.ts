import {
  CudaAsyncViewMemoryResource,
  DeviceBuffer,
  DeviceMemoryResource,
  OutOfMemoryError,
  RMMError,
  Stream,
  SystemMemoryResource,
  UpstreamResourceAdaptor,
  getCurrentDeviceResource,
} from '@rmmjs/core';
import { expectBytes, onFake, onGpu, onHost, pattern, thrown, withCuda } from '@rmmjs/test-helpers';
import { afterEach, describe, expect, it } from 'vitest';
import { availableCases, pageableMemoryAccess, resourceCases } from './resource-table.js';

const PiB = 2 ** 50;

describe.each(availableCases())('$name', ({ make, hostAccessible, name }) => {
  const made: DeviceMemoryResource[] = [];
  const create = () => {
    const mr = make();
    made.push(mr);
    return mr;
  };
  afterEach(() => {
    for (const mr of made.splice(0)) mr[Symbol.dispose]();
  });

  it('is a DeviceMemoryResource of its own class', () => {
    const mr = create();
    expect(mr).toBeInstanceOf(DeviceMemoryResource);
    expect(mr.constructor.name).toBe(name);
    expect(mr.device).toBe(0);
  });

  it('allocates 0 bytes as 0n and deallocates it', () => {
    const mr = create();
    expect(mr.allocate(0)).toBe(0n);
    mr.deallocate(0n, 0);
  });

  it('hands out distinct 256-byte aligned pointers', () => {
    const mr = create();
    const sizes = [1, 7, 256, 1000, 4096, 1 << 20];
    const pointers = sizes.map((size) => mr.allocate(size));
    for (const ptr of pointers) {
      expect(ptr).not.toBe(0n);
      expect(ptr % 256n).toBe(0n);
    }
    expect(new Set(pointers).size).toBe(pointers.length);
    pointers.forEach((ptr, i) => mr.deallocate(ptr, sizes[i]));
  });

  it('allocates on a stream', () => {
    const mr = create();
    using stream = new Stream();
    const ptr = mr.allocate(4096, stream);
    expect(ptr % 256n).toBe(0n);
    mr.deallocate(ptr, 4096, stream);
    stream.synchronize();
  });

  it('keeps bytes written into its memory', () => {
    const mr = create();
    const buffers = [100, 5000, 65536].map((size, i) => new DeviceBuffer({ data: pattern(size, i), mr }));
    buffers.forEach((buffer, i) => expectBytes(buffer.toBytes(), pattern(buffer.size, i)));
    for (const buffer of buffers) buffer.free();
  });

  // Never ask a real GPU for more managed memory than it has (it can hang the device).
  it.skipIf(name === 'ManagedMemoryResource' && onGpu())(
    'an impossible request (1 PiB) is OutOfMemoryError and the resource stays usable',
    () => {
      const mr = create();
      const error = thrown(() => mr.allocate(PiB));
      expect(error).toBeInstanceOf(OutOfMemoryError);
      expect(error.code).toBe('ERR_RMM_OUT_OF_MEMORY');
      expect(error.message).toContain(String(PiB));
      const ptr = mr.allocate(1024);
      expect(ptr).not.toBe(0n);
      mr.deallocate(ptr, 1024);
    },
  );

  it('is equal to another of its kind', () => {
    const a = create();
    const b = create();
    expect(a.isEqual(a)).toBe(true);
    if (name !== 'CudaAsyncMemoryResource') expect(a.isEqual(b)).toBe(true);
    else expect(a.isEqual(b)).toBe(false); // each owns its own pool
  });

  it('after dispose, use is ERR_RMM_DISPOSED and dispose again is a no-op', () => {
    const mr = make();
    mr[Symbol.dispose]();
    mr[Symbol.dispose]();
    const error = thrown(() => mr.allocate(8));
    expect(error).toBeInstanceOf(RMMError);
    expect(error.code).toBe('ERR_RMM_DISPOSED');
  });

  it('a buffer keeps its resource alive after the resource is disposed', () => {
    const mr = make();
    const buffer = new DeviceBuffer({ data: pattern(512, 9), mr });
    mr[Symbol.dispose]();
    expectBytes(buffer.toBytes(), pattern(512, 9));
    expect(buffer.mr.constructor.name).toBe(name);
    buffer.free();
  });

  it.runIf(hostAccessible && !onHost())('its memory is readable by the host (copy from the pointer)', () => {
    const mr = create();
    const source = new DeviceBuffer({ data: pattern(300, 4), mr });
    const copy = new DeviceBuffer({ size: 300 });
    copy.copyFromDevice(source);
    expectBytes(copy.toBytes(), pattern(300, 4));
    source.free();
    copy.free();
  });
});

describe('bad input to allocate and deallocate', () => {
  const mr = getCurrentDeviceResource();

  it.each([
    ['a string', '8'],
    ['a bigint', 8n],
    ['an object', {}],
    ['undefined', undefined],
  ])('size that is %s: ERR_INVALID_ARG_TYPE naming nbytes', (_what, size) => {
    const error = thrown(() => mr.allocate(size as never));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
    expect(error.message).toContain('"nbytes"');
  });

  it.each([-1, 1.5, NaN, Infinity, -Infinity, 2 ** 53])('size %d: ERR_OUT_OF_RANGE naming nbytes', (size) => {
    const error = thrown(() => mr.allocate(size));
    expect(error).toBeInstanceOf(RangeError);
    expect(error.code).toBe('ERR_OUT_OF_RANGE');
    expect(error.message).toContain('"nbytes"');
  });

  it('a null stream is ERR_INVALID_ARG_TYPE "stream argument cannot be null"', () => {
    const error = thrown(() => mr.allocate(8, null as never));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
    expect(error.message).toContain('stream argument cannot be null');
  });

  it('a non-Stream stream is ERR_INVALID_ARG_TYPE', () => {
    const error = thrown(() => mr.allocate(8, { handle: 0n } as never));
    expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
    expect(error.message).toContain('Stream');
  });

  it('deallocate checks its pointer and size', () => {
    expect(thrown(() => mr.deallocate(5 as never, 8)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => mr.deallocate(256n, -8)).code).toBe('ERR_OUT_OF_RANGE');
    // Found by the fuzzer (tooling/fuzz): these were ERR_INVALID_ARG_TYPE from the native side.
    for (const ptr of [-256n, 2n ** 64n]) {
      const error = thrown(() => mr.deallocate(ptr, 8));
      expect(error).toBeInstanceOf(RangeError);
      expect(error.code).toBe('ERR_OUT_OF_RANGE');
      expect(error.message).toContain('"ptr"');
    }
  });

  it('DeviceMemoryResource and UpstreamResourceAdaptor cannot be constructed directly', () => {
    for (const Class of [DeviceMemoryResource, UpstreamResourceAdaptor]) {
      for (const argument of [undefined, 5, 'x', Symbol('s')]) {
        const error = thrown(() => new (Class as never as new (x: unknown) => unknown)(argument));
        expect(error).toBeInstanceOf(TypeError);
        expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
        expect(error.message).toContain(`${Class.name} cannot be constructed directly`);
      }
    }
    expect(thrown(() => new (DeviceMemoryResource as never as new (x: unknown) => unknown)({})).code).toBe(
      'ERR_INVALID_ARG_TYPE',
    );
  });

  // Found by the fuzzer (tooling/fuzz): a TypeError without a code.
  it('upstreamMr of a resource without an upstream is ERR_INVALID_ARG_TYPE', () => {
    const error = thrown(() => Reflect.get(UpstreamResourceAdaptor.prototype, 'upstreamMr', mr));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
    expect(error.message).toContain(`${mr.constructor.name} has no upstream resource`);
  });

  it('a null pool handle is "Unexpected null pool handle."', () => {
    const error = thrown(() => new CudaAsyncViewMemoryResource(0n));
    if (withCuda()) {
      expect(error).toBeInstanceOf(RMMError);
      expect(error.code).toBe('ERR_RMM_LOGIC');
      expect(error.message).toContain('Unexpected null pool handle.');
    } else {
      expect(error.code).toBe('ERR_CUDA_DRIVER_NOT_FOUND');
    }
    expect(thrown(() => new CudaAsyncViewMemoryResource(5 as never)).code).toBe('ERR_INVALID_ARG_TYPE');
  });

  it('a pool handle outside 0..2^64 - 1 is out of range, as for every pointer', () => {
    for (const handle of [-1n, 2n ** 64n, -(2n ** 70n)]) {
      const error = thrown(() => new CudaAsyncViewMemoryResource(handle));
      expect(error).toBeInstanceOf(RangeError);
      expect(error.code).toBe('ERR_OUT_OF_RANGE');
      expect(error.message).toContain('poolHandle');
    }
  });
});

describe.runIf(pageableMemoryAccess())('SystemMemoryResource tells a double free', () => {
  it('deallocating twice is ERR_RMM_LOGIC and other memory is intact', () => {
    const mr = new SystemMemoryResource();
    const keep = new DeviceBuffer({ data: pattern(1000, 3), mr });
    const ptr = mr.allocate(1000);
    mr.deallocate(ptr, 1000);
    const error = thrown(() => mr.deallocate(ptr, 1000));
    expect(error).toBeInstanceOf(RMMError);
    expect(error.code).toBe('ERR_RMM_LOGIC');
    expect(error.message).toContain('did not allocate or already deallocated');
    expectBytes(keep.toBytes(), pattern(1000, 3));
    keep.free();
  });
});

describe.runIf(withCuda())('CUDA resources tell a double free', () => {
  it('cuMemFree of a freed pointer (CUDA_ERROR_INVALID_VALUE) is RMMError ERR_RMM_LOGIC', () => {
    const mr = resourceCases[0].make();
    const keep = new DeviceBuffer({ data: pattern(1000, 5), mr });
    const ptr = mr.allocate(4096);
    mr.deallocate(ptr, 4096);
    const error = thrown(() => mr.deallocate(ptr, 4096));
    expect(error).toBeInstanceOf(RMMError);
    expect(error.code).toBe('ERR_RMM_LOGIC');
    expect(error.message).toContain('did not allocate or already deallocated (cuMemFree_v2: CUDA_ERROR_INVALID_VALUE)');
    expectBytes(keep.toBytes(), pattern(1000, 5));
    keep.free();
    mr[Symbol.dispose]();
  });
});

describe.runIf(onFake())('SystemMemoryResource on a GPU needs pageable memory access', () => {
  it('without it: RMMError saying so', () => {
    const error = thrown(() => new SystemMemoryResource());
    expect(error).toBeInstanceOf(RMMError);
    expect(error.code).toBe('ERR_RMM_LOGIC');
    expect(error.message).toContain('System memory allocator is not supported with this hardware/software version.');
  });
});
