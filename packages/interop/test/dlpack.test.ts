// DLPack 1.1 both ways, with a third party written against DLPack's own header (dlpack_peer.c):
// what rmmjs produces, what it consumes, who calls the deleter and when, and every bad input.
import {
  CudaMemoryResource,
  DeviceBuffer,
  ManagedMemoryResource,
  PinnedHostMemoryResource,
  RMMError,
  Stream,
  cuda,
  getCurrentDeviceResource,
  setCurrentDeviceResource,
} from '@rmmjs/core';
import { DLDeviceType, DLPackCapsule, fromDLPack, toDLPack } from '@rmmjs/interop';
import {
  counting,
  expectBytes,
  fakeCuda,
  onFake,
  onGpu,
  onHost,
  pattern,
  runInProcess,
  thrown,
  withCuda,
} from '@rmmjs/test-helpers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { peer, peerByte, peerPath } from './support.js';

const peerBytes = (count: number, from = 0) => Uint8Array.from({ length: count }, (_, i) => peerByte(from + i));
// The peer reads with the CPU: device memory only on the fake driver (host memory there).
const cpuReadable = !onGpu();
const child = (name: string) => new URL(`./children/${name}.js`, import.meta.url);

// Counts what the current resource hands out, to see when held memory goes back.
let counted: ReturnType<typeof counting>;
let previous: ReturnType<typeof getCurrentDeviceResource>;
beforeEach(() => {
  previous = getCurrentDeviceResource();
  counted = counting(previous);
  setCurrentDeviceResource(counted);
});
afterEach(() => {
  setCurrentDeviceResource(previous);
  expect(counted.getAllocatedBytes()).toBe(0);
  counted[Symbol.dispose]();
});

describe('toDLPack', () => {
  // A default stream is the current device's; the buffer's work (its allocation, its copies) was
  // queued in its own device's context.
  const twoDevices = withCuda() && cuda.getDeviceCount() >= 2;
  it.skipIf(!twoDevices)("a default-stream buffer of another device: that device's work is waited for", () => {
    cuda.setDevice(1);
    let buffer: DeviceBuffer;
    try {
      using mr = new CudaMemoryResource();
      buffer = new DeviceBuffer({ data: pattern(64, 3), mr });
    } finally {
      cuda.setDevice(0);
    }
    const synchronized = () => (onFake() ? (fakeCuda.stats().calls.cuCtxSynchronize ?? 0) : 0);
    const before = synchronized();
    using capsule = toDLPack(buffer);
    expect(capsule.device).toEqual({ type: DLDeviceType.kDLCUDA, id: 1 });
    if (onFake()) expect(synchronized() - before).toBe(1);
    buffer.free();
    expect(cuda.getDevice()).toBe(0);
  });

  it('makes a DLPack 1.1 capsule of the buffer: uint8, one dimension over its bytes, where the memory is', () => {
    const buffer = new DeviceBuffer({ data: pattern(1000, 1) });
    const capsule = toDLPack(buffer);
    expect(capsule).toBeInstanceOf(DLPackCapsule);
    expect(capsule.consumed).toBe(false);
    expect(capsule.version).toEqual({ major: 1, minor: 1 });
    expect(capsule.device).toEqual(withCuda() ? { type: DLDeviceType.kDLCUDA, id: buffer.device } : { type: 1, id: 0 });
    expect(capsule.dtype).toEqual({ code: 1, bits: 8, lanes: 1, name: 'uint8' });
    expect(capsule.shape).toEqual([1000]);
    expect(capsule.strides).toBeNull();
    expect(capsule.byteOffset).toBe(0);
    expect(capsule.data).toBe(buffer.ptr);
    expect(capsule.readOnly).toBe(false);
    const tensor = peer.consume(capsule.external);
    expect(tensor).toMatchObject({ major: 1, minor: 1, flags: 0, shape: [1000], strides: null, code: 1, bits: 8 });
    expect(tensor.data).toBe(buffer.ptr);
    if (cpuReadable) expect(peer.readByte(tensor.id, 999)).toBe(pattern(1000, 1)[999]);
    expect(capsule.consumed).toBe(true);
    peer.release(tensor.id);
    buffer.free();
  });

  it('describes the tensor it is given: dtype, shape, strides and byte offset', () => {
    const buffer = new DeviceBuffer({ size: 4096 });
    const capsule = toDLPack(buffer, { dtype: 'float32', shape: [3, 4], strides: [1, 3], byteOffset: 256 });
    expect(capsule.dtype).toEqual({ code: 2, bits: 32, lanes: 1, name: 'float32' });
    const tensor = peer.consume(capsule.external);
    expect(tensor).toMatchObject({ shape: [3, 4], strides: [1, 3], code: 2, bits: 32, lanes: 1, byteOffset: 256 });
    expect(tensor.data).toBe(buffer.ptr);
    peer.release(tensor.id);
    const custom = toDLPack(buffer, { dtype: { code: 2, bits: 16, lanes: 4 }, shape: [] });
    expect(custom.dtype).toEqual({ code: 2, bits: 16, lanes: 4 });
    expect(custom.shape).toEqual([]);
    custom[Symbol.dispose]();
    // By default the shape is the bytes from byteOffset, in elements.
    const tail = toDLPack(buffer, { dtype: 'int64', byteOffset: 96 });
    expect(tail.shape).toEqual([500]);
    tail[Symbol.dispose]();
    buffer.free();
  });

  it('keeps the memory (and its resource) until the deleter runs, after free(), from a thread of its own', () => {
    const buffer = new DeviceBuffer({ data: pattern(5000, 2) });
    const tensor = peer.consume(toDLPack(buffer).external);
    buffer.free();
    expect(counted.getAllocatedBytes()).toBe(5120);
    if (cpuReadable) expect(peer.readByte(tensor.id, 4999)).toBe(pattern(5000, 2)[4999]);
    peer.releaseOnThread(tensor.id);
    expect(counted.getAllocatedBytes()).toBe(0);
  });

  it('keeps the old memory when the buffer grows and moves', () => {
    const buffer = new DeviceBuffer({ data: pattern(100, 3) });
    const old = buffer.ptr;
    const tensor = peer.consume(toDLPack(buffer).external);
    buffer.resize(10_000);
    expect(buffer.ptr).not.toBe(old);
    expect(tensor.data).toBe(old);
    expect(counted.getAllocatedBytes()).toBe(256 + 10_240);
    peer.release(tensor.id);
    expect(counted.getAllocatedBytes()).toBe(10_240);
    buffer.free();
  });

  it('a capsule nobody consumes gives the memory back when disposed, or when collected', () => {
    const buffer = new DeviceBuffer({ size: 2048 });
    const capsule = toDLPack(buffer);
    buffer.free();
    expect(counted.getAllocatedBytes()).toBe(2048);
    capsule[Symbol.dispose]();
    expect(counted.getAllocatedBytes()).toBe(0);
    expect(capsule.consumed).toBe(true);
    capsule[Symbol.dispose](); // nothing left to hand back
    const run = runInProcess(child('collects-capsules'), { nodeArgs: ['--expose-gc'] });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(`${10 * 2 ** 20} 0`);
  });

  it.runIf(withCuda())('says where the memory is: managed memory, pinned host memory', () => {
    const managed = new ManagedMemoryResource();
    const pinned = new PinnedHostMemoryResource();
    const a = new DeviceBuffer({ size: 512, mr: managed });
    const b = new DeviceBuffer({ size: 512, mr: pinned });
    const ca = toDLPack(a);
    const cb = toDLPack(b);
    expect(ca.device).toEqual({ type: DLDeviceType.kDLCUDAManaged, id: 0 });
    expect(cb.device).toEqual({ type: DLDeviceType.kDLCUDAHost, id: 0 });
    ca[Symbol.dispose]();
    cb[Symbol.dispose]();
    a.free();
    b.free();
    managed[Symbol.dispose]();
    pinned[Symbol.dispose]();
  });

  it("synchronises the buffer's stream first, and an empty buffer has no data pointer", () => {
    const stream = new Stream();
    const buffer = new DeviceBuffer({ size: 0, stream });
    const capsule = toDLPack(buffer);
    expect(capsule.shape).toEqual([0]);
    expect(capsule.data).toBe(0n);
    const view = fromDLPack(capsule);
    expect(view.size).toBe(0);
    view.free();
    buffer.free();
    stream[Symbol.dispose]();
  });

  it('works when the Stream object of the buffer was disposed (the buffer keeps the stream)', () => {
    const stream = new Stream();
    const buffer = new DeviceBuffer({ data: pattern(300, 6), stream });
    stream[Symbol.dispose]();
    const view = fromDLPack(toDLPack(buffer));
    expectBytes(view.toBytes(), pattern(300, 6));
    view.free();
    buffer.free();
  });

  it.each([
    ['not a DeviceBuffer', () => toDLPack({} as DeviceBuffer), TypeError, 'ERR_INVALID_ARG_TYPE', '"buffer"'],
    [
      'options not an object',
      (b: DeviceBuffer) => toDLPack(b, 5 as never),
      TypeError,
      'ERR_INVALID_ARG_TYPE',
      '"options"',
    ],
    [
      'an unknown dtype',
      (b: DeviceBuffer) => toDLPack(b, { dtype: 'float8' as never }),
      TypeError,
      'ERR_INVALID_ARG_VALUE',
      'float8',
    ],
    [
      'a dtype of 0 bits',
      (b: DeviceBuffer) => toDLPack(b, { dtype: { code: 0, bits: 0, lanes: 1 } }),
      RangeError,
      'ERR_OUT_OF_RANGE',
      'options.dtype.bits',
    ],
    [
      'a shape that is no array',
      (b: DeviceBuffer) => toDLPack(b, { shape: 5 as never }),
      TypeError,
      'ERR_INVALID_ARG_TYPE',
      'options.shape',
    ],
    [
      'a negative extent',
      (b: DeviceBuffer) => toDLPack(b, { shape: [2, -1] }),
      RangeError,
      'ERR_OUT_OF_RANGE',
      'options.shape[1]',
    ],
    [
      'a shape past the end',
      (b: DeviceBuffer) => toDLPack(b, { shape: [1001] }),
      TypeError,
      'ERR_INVALID_ARG_VALUE',
      "bytes 0 to 1001, outside the buffer's 1000 bytes",
    ],
    [
      'a huge shape',
      (b: DeviceBuffer) => toDLPack(b, { shape: [2 ** 52, 2 ** 52] }),
      TypeError,
      'ERR_INVALID_ARG_VALUE',
      'outside the buffer',
    ],
    [
      'strides of the wrong length',
      (b: DeviceBuffer) => toDLPack(b, { shape: [10], strides: [1, 1] }),
      TypeError,
      'ERR_INVALID_ARG_VALUE',
      'has 2 entries for 1 dimensions',
    ],
    [
      'strides past the end',
      (b: DeviceBuffer) => toDLPack(b, { shape: [10, 10], strides: [200, 1] }),
      TypeError,
      'ERR_INVALID_ARG_VALUE',
      'bytes 0 to 1810',
    ],
    [
      'strides before the start',
      (b: DeviceBuffer) => toDLPack(b, { shape: [10], strides: [-1] }),
      TypeError,
      'ERR_INVALID_ARG_VALUE',
      'bytes -9 to 1',
    ],
    [
      'a fractional stride',
      (b: DeviceBuffer) => toDLPack(b, { shape: [10], strides: [1.5] }),
      RangeError,
      'ERR_OUT_OF_RANGE',
      'options.strides[0]',
    ],
    [
      'a byteOffset past the end',
      (b: DeviceBuffer) => toDLPack(b, { byteOffset: 1001 }),
      RangeError,
      'ERR_OUT_OF_RANGE',
      'options.byteOffset',
    ],
    [
      'elements that do not divide the bytes',
      (b: DeviceBuffer) => toDLPack(b, { dtype: 'complex128' }),
      TypeError,
      'ERR_INVALID_ARG_VALUE',
      '16-byte elements',
    ],
  ])('refuses %s', (_, call, Class, code, text) => {
    const buffer = new DeviceBuffer({ size: 1000 });
    const error = thrown(() => call(buffer));
    expect(error).toBeInstanceOf(Class);
    expect(error.code).toBe(code);
    expect(error.message).toContain(text);
    buffer.free();
  });

  it('refuses a freed buffer', () => {
    const buffer = new DeviceBuffer({ size: 10 });
    buffer.free();
    expect(thrown(() => toDLPack(buffer)).code).toBe('ERR_RMM_DISPOSED');
  });

  it("refuses a Proxy of a buffer as it refuses anything that is not one (ERR_INVALID_ARG_TYPE, not V8's TypeError)", () => {
    const buffer = new DeviceBuffer({ size: 16 });
    const error = thrown(() => toDLPack(new Proxy(buffer, {})));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
    expect(error.message).toContain('The "buffer" argument must be an instance of DeviceBuffer');
    buffer.free();
  });
});

describe('fromDLPack', () => {
  it("is a view of another producer's memory, and its free() calls the deleter exactly once", () => {
    const before = peer.deleted();
    const capsule = new DLPackCapsule(peer.produce({ bytes: 300 }));
    const data = capsule.data;
    expect(data).not.toBe(0n);
    const view = fromDLPack(capsule);
    expect(view).toBeInstanceOf(DeviceBuffer);
    expect(view.ptr).toBe(data); // the producer's memory, not a copy
    expect(view.size).toBe(300);
    expectBytes(view.toBytes(), peerBytes(300));
    view.copyFromHost(new Uint8Array([1, 2, 3]));
    expect([...view.toBytes().subarray(0, 4)]).toEqual([1, 2, 3, peerByte(3)]);
    expect(peer.deleted()).toBe(before);
    view.free();
    expect(peer.deleted()).toBe(before + 1);
    expect(thrown(() => view.free()).code).toBe('ERR_RMM_DISPOSED');
    expect(peer.deleted()).toBe(before + 1);
  });

  it('takes a raw capsule external too, and a view of rmmjs memory is that memory', () => {
    const buffer = new DeviceBuffer({ data: pattern(64, 4) });
    const view = fromDLPack(toDLPack(buffer).external);
    expect(view.ptr).toBe(buffer.ptr);
    view.copyFromHost(new Uint8Array([9]));
    expect(buffer.toBytes()[0]).toBe(9);
    buffer.free();
    expect(counted.getAllocatedBytes()).toBe(256); // the view holds it
    view.free();
  });

  it('views the bytes the tensor spans: byte offset, strides in both directions, elements of any size', () => {
    const cases: [Parameters<typeof peer.produce>[0], number, number][] = [
      [{ bytes: 100, shape: [10], byteOffset: 20 }, 20, 10],
      [{ bytes: 100, shape: [3, 2], strides: [1, 3], code: 2, bits: 32 }, 0, 24],
      [{ bytes: 100, shape: [4], strides: [-1], byteOffset: 3 }, 0, 4],
      [{ bytes: 100, shape: [2, 5], code: 2, bits: 16, lanes: 2 }, 0, 40],
      [{ bytes: 100, shape: [9], code: 17, bits: 4 }, 0, 5], // packed fp4: 36 bits
      [{ bytes: 100, shape: [0, 7] }, 0, 0],
    ];
    for (const [spec, start, size] of cases) {
      const view = fromDLPack(peer.produce(spec));
      expect(view.size).toBe(size);
      if (size > 0) expectBytes(view.toBytes(), peerBytes(size, start));
      view.free();
    }
  });

  it('a view copies into, and grows into, memory of the current resource; the lent memory goes back when it moves', () => {
    const before = peer.deleted();
    const view = fromDLPack(peer.produce({ bytes: 500 }));
    const copy = view.copy();
    expect(counted.getAllocatedBytes()).toBe(512);
    expectBytes(copy.toBytes(), peerBytes(500));
    view.resize(4000);
    expect(peer.deleted()).toBe(before + 1);
    expectBytes(view.toBytes().subarray(0, 500), peerBytes(500));
    view.free();
    copy.free();
  });

  it("a view exported again keeps the producer's memory until every holder let go", () => {
    const before = peer.deleted();
    const view = fromDLPack(peer.produce({ bytes: 128 }));
    const tensor = peer.consume(toDLPack(view).external);
    view.free();
    expect(peer.deleted()).toBe(before);
    if (cpuReadable) expect(peer.readByte(tensor.id, 127)).toBe(peerByte(127));
    peer.releaseOnThread(tensor.id);
    expect(peer.deleted()).toBe(before + 1);
    expect(peer.deleterThreads()).toBeGreaterThan(0);
  });

  it('a collected view calls the deleter too', () => {
    const run = runInProcess(child('collects-views'), { args: [peerPath], nodeArgs: ['--expose-gc'] });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('11');
  });

  it('consumes a capsule once: again is ERR_INVALID_ARG_VALUE, for rmmjs and for any consumer', () => {
    const capsule = new DLPackCapsule(peer.produce({ bytes: 10 }));
    const view = fromDLPack(capsule);
    const again = thrown(() => fromDLPack(capsule));
    expect(again).toBeInstanceOf(TypeError);
    expect(again.code).toBe('ERR_INVALID_ARG_VALUE');
    expect(again.message).toBe('The argument "capsule" was consumed already: a DLPack capsule can be consumed once');
    expect(() => peer.consume(capsule.external)).toThrow('the capsule was consumed already');
    expect(capsule.consumed).toBe(true);
    const used = thrown(() => capsule.shape);
    expect(used).toBeInstanceOf(RMMError);
    expect(used.code).toBe('ERR_RMM_DISPOSED');
    view.free();
    const buffer = new DeviceBuffer({ size: 8 });
    const ours = toDLPack(buffer);
    peer.release(peer.consume(ours.external).id);
    expect(thrown(() => fromDLPack(ours)).code).toBe('ERR_INVALID_ARG_VALUE');
    buffer.free();
  });

  it('hands a tensor of an unknown major version back to its producer and refuses it', () => {
    const before = peer.deleted();
    const capsule = new DLPackCapsule(peer.produce({ bytes: 10, major: 2, minor: 0 }));
    expect(capsule.version).toEqual({ major: 2, minor: 0 });
    expect(thrown(() => capsule.shape).message).toBe(
      'DLPackCapsule holds a DLPack 2.0 tensor, whose layout rmmjs does not know',
    );
    const error = thrown(() => fromDLPack(capsule));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe('ERR_INVALID_ARG_VALUE');
    expect(error.message).toBe(
      'The argument "capsule" holds a DLPack 2.0 tensor, and rmmjs reads DLPack 1.x (it implements 1.1)',
    );
    expect(peer.deleted()).toBe(before + 1);
    expect(capsule.consumed).toBe(true);
    // A newer minor version only adds values: it is taken.
    const newer = fromDLPack(peer.produce({ bytes: 10, minor: 3 }));
    expect(newer.size).toBe(10);
    newer.free();
  });

  it.each([
    [
      'memory of another kind of device (kDLOpenCL)',
      { bytes: 10, deviceType: 4 },
      'holds memory of device type 4, which is neither host nor CUDA memory',
    ],
    ['a negative extent', { bytes: 10, shape: [2, -3] }, 'has a negative extent in its shape'],
    ['a dtype of 0 bits', { bytes: 10, bits: 0 }, 'has an invalid dtype (0 bits or 0 lanes)'],
    ['a NULL data pointer for bytes', { bytes: 10, nullData: 1 as const }, 'has a NULL data pointer for 10 bytes'],
    [
      'strides with elements of less than a byte',
      { bytes: 10, shape: [4], strides: [1], code: 17, bits: 4 },
      'has strides and elements of less than a byte',
    ],
    ['strides that overflow', { bytes: 10, shape: [3, 3], strides: [2 ** 62, 2 ** 62] }, 'has strides that overflow'],
    ['too many elements', { bytes: 10, shape: [2 ** 40, 2 ** 40] }, 'has too many elements'],
    [
      'CUDA memory of a device that is not there',
      { bytes: 10, deviceType: 2, deviceId: 64 },
      withCuda()
        ? 'holds memory of CUDA device 64, and this process has'
        : 'holds CUDA memory (kDLCUDA), and rmmjs runs in host mode (no CUDA)',
    ],
  ])('hands back and refuses a tensor with %s', (_, spec, message) => {
    const before = peer.deleted();
    const error = thrown(() => fromDLPack(peer.produce(spec)));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe('ERR_INVALID_ARG_VALUE');
    expect(error.message).toContain(`The argument "capsule" ${message}`);
    expect(peer.deleted()).toBe(before + 1);
  });

  it.runIf(onHost())('refuses CUDA memory in host mode', () => {
    for (const deviceType of [2, 3, 13]) {
      const error = thrown(() => fromDLPack(peer.produce({ bytes: 4, deviceType })));
      expect(error.code).toBe('ERR_INVALID_ARG_VALUE');
      expect(error.message).toContain('and rmmjs runs in host mode (no CUDA)');
    }
  });

  it.runIf(withCuda() && !onGpu())(
    'takes kDLCUDA, kDLCUDAHost and kDLCUDAManaged tensors with CUDA (the fake driver takes host memory for all)',
    () => {
      for (const deviceType of [2, 3, 13]) {
        const view = fromDLPack(
          peer.produce({ bytes: 40, deviceType, deviceId: deviceType === 2 ? cuda.getDeviceCount() - 1 : 0 }),
        );
        expect(view.device).toBe(deviceType === 2 ? cuda.getDeviceCount() - 1 : 0);
        expectBytes(view.toBytes(), peerBytes(40));
        view.free();
      }
    },
  );

  it('a producer without a deleter is fine', () => {
    const before = peer.deleted();
    const view = fromDLPack(peer.produce({ bytes: 10, noDeleter: 1 }));
    view.free();
    expect(peer.deleted()).toBe(before);
  });

  it.each([
    ['an object', {}],
    ['null', null],
    ['a DeviceBuffer', 'buffer'],
    ['a string', 'capsule'],
  ])('refuses %s, which is no capsule', (_, value) => {
    const buffer = new DeviceBuffer({ size: 4 });
    const arg = value === 'buffer' ? buffer : value;
    const error = thrown(() => fromDLPack(arg as object));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
    expect(error.message).toContain('The "capsule" argument must be a DLPackCapsule');
    expect(thrown(() => new DLPackCapsule(arg as object)).code).toBe('ERR_INVALID_ARG_TYPE');
    buffer.free();
  });

  it('checks options.stream before it consumes the capsule', () => {
    const capsule = new DLPackCapsule(peer.produce({ bytes: 4 }));
    expect(thrown(() => fromDLPack(capsule, { stream: null as never })).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(capsule.consumed).toBe(false);
    const stream = new Stream();
    const view = fromDLPack(capsule, { stream });
    expect(view.stream).toBe(stream);
    view.free();
    stream[Symbol.dispose]();
  });
});
