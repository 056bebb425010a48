import {
  CudaMemoryResource,
  DEFAULT_STREAM,
  DeviceBuffer,
  RMMError,
  Stream,
  cuda,
  getCurrentDeviceResource,
} from '@rmmjs/core';
import { native } from '@rmmjs/core/internal';
import { expectBytes, onGpu, pattern, rejected, thrown } from '@rmmjs/test-helpers';
import { afterEach, describe, expect, it } from 'vitest';
import { probe } from './probe.js';
import { availableCases } from './resource-table.js';

const live: DeviceBuffer[] = [];
function track(buffer: DeviceBuffer): DeviceBuffer {
  live.push(buffer);
  return buffer;
}
afterEach(() => {
  for (const buffer of live.splice(0)) buffer[Symbol.dispose]();
});

describe('DeviceBuffer', () => {
  it('size 0 has ptr 0n and does not call the resource', () => {
    const buffer = track(new DeviceBuffer());
    expect(buffer.ptr).toBe(0n);
    expect(buffer.size).toBe(0);
    expect(buffer.nbytes).toBe(0);
    expect(buffer.capacity()).toBe(0);
    expect(buffer.toBytes()).toEqual(new Uint8Array(0));
    expect(new DeviceBuffer({ size: 0 }).ptr).toBe(0n);
  });

  it('has size, nbytes, capacity, a 256-byte aligned ptr, its resource and stream', () => {
    const buffer = track(new DeviceBuffer({ size: 5 }));
    expect(buffer.size).toBe(5);
    expect(buffer.nbytes).toBe(5);
    expect(buffer.capacity()).toBe(5);
    expect(buffer.ptr).not.toBe(0n);
    expect(buffer.ptr % 256n).toBe(0n);
    expect(buffer.mr).toBe(getCurrentDeviceResource());
    expect(buffer.stream).toBe(DEFAULT_STREAM);
    expect(buffer.device).toBe(0);
  });

  it('made without a stream, says its stream is DEFAULT_STREAM (the native default), also once freed', () => {
    const buffer = new DeviceBuffer({ size: 5 });
    expect(buffer.stream).toBe(DEFAULT_STREAM);
    buffer.free();
    expect(buffer.stream).toBe(DEFAULT_STREAM);
  });

  it('round-trips bytes from any ArrayBufferView or ArrayBuffer', () => {
    const bytes = pattern(4096, 11);
    const views: (ArrayBufferView | ArrayBuffer)[] = [
      bytes,
      Buffer.from(bytes),
      new DataView(bytes.slice().buffer),
      new Uint32Array(bytes.slice().buffer),
      bytes.slice().buffer,
    ];
    for (const view of views) {
      const buffer = track(new DeviceBuffer({ data: view }));
      expect(buffer.size).toBe(4096);
      expect(buffer.toBytes()).toEqual(bytes);
    }
    const offsetView = new Uint8Array(bytes.buffer, 100, 50);
    expect(track(DeviceBuffer.toDevice(offsetView)).toBytes()).toEqual(bytes.subarray(100, 150));
  });

  it('size with data copies the first size bytes', () => {
    const buffer = track(new DeviceBuffer({ data: pattern(100, 2), size: 40 }));
    expectBytes(buffer.toBytes(), pattern(100, 2).subarray(0, 40));
    const error = thrown(() => new DeviceBuffer({ data: pattern(10, 2), size: 40 }));
    expect(error.code).toBe('ERR_INVALID_ARG_VALUE');
    expect(error.message).toContain('10');
    expect(error.message).toContain('40');
  });

  it('copyToHost returns the target itself, or a new Uint8Array', () => {
    const buffer = track(DeviceBuffer.toDevice(new Uint8Array([97, 98, 99])));
    const target = new Uint8Array(5).fill(7);
    expect(buffer.copyToHost(target)).toBe(target);
    expect([...target]).toEqual([97, 98, 99, 7, 7]);
    const fresh = buffer.copyToHost();
    expect(fresh).toBeInstanceOf(Uint8Array);
    expect([...fresh]).toEqual([97, 98, 99]);
    const arrayBuffer = new ArrayBuffer(3);
    expect(buffer.copyToHost(arrayBuffer)).toBe(arrayBuffer);
    expect([...new Uint8Array(arrayBuffer)]).toEqual([97, 98, 99]);
  });

  it('copyFromHost writes the start of the buffer (RMM example)', () => {
    const buffer = track(new DeviceBuffer({ data: new Uint8Array(10) }));
    buffer.copyFromHost(new TextEncoder().encode('abcdef'));
    expect([...buffer.copyToHost()]).toEqual([97, 98, 99, 100, 101, 102, 0, 0, 0, 0]);
  });

  it('copyFromDevice takes a DeviceBuffer or a CUDA array (RMM example)', () => {
    const buffer = track(new DeviceBuffer({ data: new Uint8Array(5) }));
    const source = track(DeviceBuffer.toDevice(new Uint8Array([97, 98, 99])));
    buffer.copyFromDevice(source);
    expect([...buffer.copyToHost()]).toEqual([97, 98, 99, 0, 0]);
    const other = track(DeviceBuffer.toDevice(new Uint8Array([1, 2, 3, 4])));
    buffer.copyFromDevice({ cudaArrayInterface: { data: [other.ptr, false], shape: [2], typestr: '<u2', version: 3 } });
    expect([...buffer.copyToHost()]).toEqual([1, 2, 3, 4, 0]);
    buffer.copyFromDevice({
      __cuda_array_interface__: { data: [Number(source.ptr), false], shape: [1], strides: [1], typestr: '|u1' },
    });
    expect([...buffer.copyToHost()]).toEqual([97, 2, 3, 4, 0]);
  });

  it('copyFromDevice rejects what is not a contiguous 1-D CUDA array or does not fit', () => {
    const buffer = track(new DeviceBuffer({ size: 4 }));
    const big = track(new DeviceBuffer({ size: 8 }));
    expect(thrown(() => buffer.copyFromDevice({} as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => buffer.copyFromDevice(null as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    const tooLarge = thrown(() => buffer.copyFromDevice(big));
    expect(tooLarge.code).toBe('ERR_INVALID_ARG_VALUE');
    expect(tooLarge.message).toContain('8 bytes');
    const twoD = { cudaArrayInterface: { data: [big.ptr, false], shape: [2, 2], typestr: '|u1', version: 3 } };
    expect(thrown(() => buffer.copyFromDevice(twoD)).message).toContain('2-D');
    const strided = {
      cudaArrayInterface: { data: [big.ptr, false], shape: [2], strides: [2], typestr: '|u1', version: 3 },
    };
    expect(thrown(() => buffer.copyFromDevice(strided)).message).toContain('non-contiguous');
  });

  it('copy() is a deep copy on the same resource and stream', () => {
    const buffer = track(DeviceBuffer.toDevice(pattern(1000, 3)));
    const copy = track(buffer.copy());
    expect(copy).not.toBe(buffer);
    expect(copy.ptr).not.toBe(buffer.ptr);
    expect(copy.size).toBe(1000);
    expect(copy.mr).toBe(buffer.mr);
    expect(copy.stream).toBe(buffer.stream);
    buffer.copyFromHost(new Uint8Array(1000));
    expectBytes(copy.toBytes(), pattern(1000, 3));
  });

  it('resize within the capacity keeps the pointer; beyond it reallocates and keeps the bytes', () => {
    const buffer = track(DeviceBuffer.toDevice(pattern(1000, 4)));
    const ptr = buffer.ptr;
    buffer.resize(10);
    expect(buffer.size).toBe(10);
    expect(buffer.capacity()).toBe(1000);
    expect(buffer.ptr).toBe(ptr);
    buffer.resize(1000);
    expectBytes(buffer.toBytes(), pattern(1000, 4));
    buffer.resize(5000);
    expect(buffer.size).toBe(5000);
    expect(buffer.capacity()).toBe(5000);
    expectBytes(buffer.toBytes().subarray(0, 1000), pattern(1000, 4));
    buffer.resize(0);
    expect(buffer.size).toBe(0);
    expect(buffer.capacity()).toBe(5000);
  });

  it('reserve grows the capacity only, keeping size and bytes', () => {
    const buffer = track(DeviceBuffer.toDevice(pattern(100, 5)));
    buffer.reserve(50);
    expect(buffer.capacity()).toBe(100);
    const ptr = buffer.ptr;
    buffer.reserve(4000);
    expect(buffer.capacity()).toBe(4000);
    expect(buffer.size).toBe(100);
    expect(buffer.ptr).not.toBe(ptr);
    expectBytes(buffer.toBytes(), pattern(100, 5));
  });

  it('resize and reserve adopt the stream they are given', () => {
    using stream = new Stream();
    const buffer = track(DeviceBuffer.toDevice(pattern(10, 6)));
    buffer.resize(20, stream);
    expect(buffer.stream).toBe(stream);
    buffer.reserve(40);
    expect(buffer.stream).toBe(DEFAULT_STREAM);
    expectBytes(buffer.toBytes().subarray(0, 10), pattern(10, 6));
  });

  // The interface of a buffer's 7 bytes, without a stream.
  const bytesOf7 = (buffer: DeviceBuffer) => ({
    data: [buffer.ptr, false],
    shape: [7],
    strides: null,
    typestr: '|u1',
    version: 3,
  });

  it('cudaArrayInterface describes the bytes (version 3)', () => {
    const buffer = track(new DeviceBuffer({ size: 7 }));
    expect(buffer.cudaArrayInterface).toEqual(bytesOf7(buffer));
    using stream = new Stream();
    const onStream = track(new DeviceBuffer({ size: 7, stream }));
    expect(onStream.cudaArrayInterface.stream).toBe(stream.handle);
  });

  // Found by the fuzzer (tooling/fuzz, seed 353644665): a buffer on a stream of a CudaStreamPool that
  // was disposed threw ERR_RMM_DISPOSED from cudaArrayInterface, while the buffer itself still works.
  it("cudaArrayInterface gives the buffer's stream after its Stream object was disposed", () => {
    const stream = new Stream();
    const handle = stream.handle;
    const buffer = track(DeviceBuffer.toDevice(pattern(7, 8), stream));
    stream[Symbol.dispose]();
    expect(buffer.cudaArrayInterface).toEqual({ ...bytesOf7(buffer), stream: handle });
    const copy = track(new DeviceBuffer({ size: 7 }));
    copy.copyFromDevice(buffer);
    expectBytes(copy.toBytes(), pattern(7, 8));
  });

  it('prefetch is a no-op for memory that is not managed', () => {
    const buffer = track(DeviceBuffer.toDevice(pattern(64, 7)));
    buffer.prefetch();
    buffer.prefetch(0, DEFAULT_STREAM);
    expectBytes(buffer.toBytes(), pattern(64, 7));
    expect(thrown(() => buffer.prefetch(-2)).code).toBe('ERR_OUT_OF_RANGE');
    // Found by the fuzzer (tooling/fuzz): a null stream was taken for the buffer's own stream.
    const nullStream = thrown(() => buffer.prefetch(undefined, null as never));
    expect(nullStream).toBeInstanceOf(TypeError);
    expect(nullStream.code).toBe('ERR_INVALID_ARG_TYPE');
    expect(nullStream.message).toContain('stream argument cannot be null');
  });

  it('free() returns the memory; use after free and a second free() are ERR_RMM_DISPOSED', () => {
    const keep = track(DeviceBuffer.toDevice(pattern(256, 8)));
    const buffer = DeviceBuffer.toDevice(pattern(256, 9));
    expect(buffer.freed).toBe(false);
    buffer.free();
    expect(buffer.freed).toBe(true);
    for (const use of [
      () => buffer.ptr,
      () => buffer.size,
      () => buffer.toBytes(),
      () => buffer.resize(4),
      () => buffer.free(),
    ]) {
      const error = thrown(use);
      expect(error).toBeInstanceOf(RMMError);
      expect(error.code).toBe('ERR_RMM_DISPOSED');
    }
    buffer[Symbol.dispose](); // dispose after free is fine (using + free)
    expectBytes(keep.toBytes(), pattern(256, 8));
  });

  it('`using` frees at the end of the scope', () => {
    let escaped: DeviceBuffer;
    {
      using buffer = new DeviceBuffer({ size: 64 });
      escaped = buffer;
      expect(escaped.freed).toBe(false);
    }
    expect(escaped.freed).toBe(true);
  });

  it('bad input leaves the buffer intact', () => {
    const buffer = track(DeviceBuffer.toDevice(pattern(16, 10)));
    const tooLarge = thrown(() => buffer.copyFromHost(new Uint8Array(17)));
    expect(tooLarge).toBeInstanceOf(TypeError);
    expect(tooLarge.code).toBe('ERR_INVALID_ARG_VALUE');
    expect(tooLarge.message).toContain('17');
    expect(tooLarge.message).toContain('16');
    const tooSmall = thrown(() => buffer.copyToHost(new Uint8Array(15)));
    expect(tooSmall.code).toBe('ERR_INVALID_ARG_VALUE');
    expect(tooSmall.message).toContain('16');
    expect(tooSmall.message).toContain('15');
    expect(thrown(() => buffer.copyFromHost('abc' as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => buffer.copyToHost([1, 2] as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => buffer.copyToHost(undefined, null as never)).message).toContain(
      'stream argument cannot be null',
    );
    expect(thrown(() => buffer.resize(-1)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => buffer.reserve(2 ** 53)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => buffer.resize('8' as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    expectBytes(buffer.toBytes(), pattern(16, 10));
  });

  it('bad constructor input: sizes, data, stream, mr', () => {
    expect(thrown(() => new DeviceBuffer({ size: -5 })).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => new DeviceBuffer({ size: 0.5 })).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => new DeviceBuffer({ size: NaN })).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => new DeviceBuffer({ size: '10' as never })).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => new DeviceBuffer({ size: 10n as never })).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => new DeviceBuffer({ data: 'abc' as never })).code).toBe('ERR_INVALID_ARG_TYPE');
    const nullStream = thrown(() => new DeviceBuffer({ size: 10, stream: null as never }));
    expect(nullStream.code).toBe('ERR_INVALID_ARG_TYPE');
    expect(nullStream.message).toContain('stream argument cannot be null');
    expect(thrown(() => new DeviceBuffer({ size: 10, stream: 0 as never })).code).toBe('ERR_INVALID_ARG_TYPE');
    const badMr = thrown(() => new DeviceBuffer({ size: 10, mr: {} as never }));
    expect(badMr.code).toBe('ERR_INVALID_ARG_TYPE');
    expect(badMr.message).toContain('DeviceMemoryResource');
    expect(thrown(() => DeviceBuffer.toDevice(null as never)).code).toBe('ERR_INVALID_ARG_TYPE');
  });

  it('a request the resource cannot serve is OutOfMemoryError and nothing leaks', () => {
    const error = thrown(() => new DeviceBuffer({ size: 2 ** 50 }));
    expect(error.code).toBe('ERR_RMM_OUT_OF_MEMORY');
  });

  it('reports its capacity to V8 as external memory', () => {
    const before = probe.externalMemory();
    const buffer = new DeviceBuffer({ size: 64 << 20 });
    const during = probe.externalMemory();
    buffer.resize(80 << 20);
    const grown = probe.externalMemory();
    buffer.free();
    const after = probe.externalMemory();
    // Other allocations (ArrayBuffers) move the total a little: compare in whole MiB.
    const mib = (bytes: number) => Math.round(bytes / (1 << 20)) + 0; // + 0: no -0 for a small decrease
    expect(mib(during - before)).toBe(64);
    expect(mib(grown - during)).toBe(16);
    expect(mib(after - before)).toBe(0);
  });

  it('native calls refuse a handle number that names no buffer of this thread', () => {
    for (const bogus of [2 ** 31 - 1, -1, 'a string', {}]) {
      const error = thrown(() => native.bufferSize(bogus as never));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
    }
    expect(thrown(() => native.bufferSize(null)).code).toBe('ERR_RMM_DISPOSED');
  });
});

describe('asynchronous copies', () => {
  it('toDeviceAsync, copyToHostAsync and copyFromHostAsync round-trip', async () => {
    const buffer = track(await DeviceBuffer.toDeviceAsync(pattern(1 << 20, 12)));
    expect(buffer.size).toBe(1 << 20);
    const target = new Uint8Array(1 << 20);
    expect(await buffer.copyToHostAsync(target)).toBe(target);
    expectBytes(target, pattern(1 << 20, 12));
    await buffer.copyFromHostAsync(pattern(1000, 13));
    expectBytes((await buffer.copyToHostAsync()).subarray(0, 1000), pattern(1000, 13));
  });

  // (On the copy's own stream, or the legacy default stream, a move waits for the copy: stream-order.test.ts.)
  it('free() during a copy waits for it; a move on a stream not ordered with the copy refuses', async () => {
    const buffer = DeviceBuffer.toDevice(pattern(1 << 20, 14));
    const [mine, other] = [new Stream(), new Stream()];
    const copying = buffer.copyToHostAsync(undefined, mine);
    const error = thrown(() => buffer.resize(8 << 20, other));
    for (const stream of [mine, other]) stream[Symbol.dispose]();
    expect([error.name, error.code]).toEqual(['RMMError', 'ERR_RMM_LOGIC']);
    expect(error.message).toBe('DeviceBuffer has 1 asynchronous copies in flight: await them first');
    expect(buffer.size).toBe(1 << 20);
    buffer.free();
    expect(buffer.freed).toBe(true);
    expectBytes(await copying, pattern(1 << 20, 14));
  });

  it('errors arrive as rejections with the documented codes', async () => {
    const buffer = track(new DeviceBuffer({ size: 8 }));
    expect((await rejected(buffer.copyToHostAsync(new Uint8Array(4)))).code).toBe('ERR_INVALID_ARG_VALUE');
    expect((await rejected(buffer.copyFromHostAsync(new Uint8Array(9)))).code).toBe('ERR_INVALID_ARG_VALUE');
    expect((await rejected(DeviceBuffer.toDeviceAsync('x' as never))).code).toBe('ERR_INVALID_ARG_TYPE');
    const freed = new DeviceBuffer({ size: 8 });
    freed.free();
    expect((await rejected(freed.copyToHostAsync())).code).toBe('ERR_RMM_DISPOSED');
  });
});

describe.each(availableCases())('DeviceBuffer over $name', ({ make }) => {
  it('allocates, copies, resizes and frees on it', () => {
    const mr = make();
    const buffer = new DeviceBuffer({ data: pattern(3000, 15), mr });
    expect(buffer.mr).toBe(mr);
    buffer.resize(6000);
    expectBytes(buffer.toBytes().subarray(0, 3000), pattern(3000, 15));
    const copy = buffer.copy();
    expect(copy.mr).toBe(mr);
    copy.free();
    buffer.free();
    mr[Symbol.dispose]();
  });
});

describe('large host copies (staged through pinned buffers on a GPU)', () => {
  // Above the 16 MiB from which a GPU stages a copy: spans from 512 KiB up and down again, the last
  // one partial; in host mode, an asynchronous copy of two slices (16 MiB each), the last one partial.
  const size = (20 << 20) + 12345;

  it('every byte of a copy of 5 pinned chunks and a bit arrives, both ways', () => {
    const large = (40 << 20) + 4097; // on a GPU: 16 spans ramping up to a chunk and down, through 8 chunks
    const bytes = pattern(large, 25);
    const buffer = track(new DeviceBuffer({ data: bytes }));
    expectBytes(buffer.copyToHost(new Uint8Array(large)), bytes);
    buffer.free();
  });

  it('round-trip synchronously and asynchronously', async () => {
    const bytes = pattern(size, 21);
    const buffer = track(new DeviceBuffer({ data: bytes }));
    expectBytes(buffer.toBytes(), bytes);
    const other = pattern(size, 22);
    await buffer.copyFromHostAsync(other);
    expectBytes(await buffer.copyToHostAsync(), other);
    const offsetView = new Uint8Array(other.buffer, 1, size - 1);
    buffer.copyFromHost(offsetView);
    expectBytes(buffer.toBytes().subarray(0, size - 1), offsetView);
    // Into host memory that starts off a cache line and ends mid-line, with its neighbours intact.
    const into = new Uint8Array(size + 8).fill(7);
    buffer.copyToHost(new Uint8Array(into.buffer, 3, size));
    expectBytes(into.subarray(3, size + 3), buffer.toBytes());
    expect([...into.subarray(0, 3), ...into.subarray(size + 3)]).toEqual([7, 7, 7, 7, 7, 7, 7, 7]);
  });

  const twoDevices = cuda.isAvailable() && cuda.getDeviceCount() >= 2;
  it.skipIf(!twoDevices)("on a stream of another device, run in that stream's context, both ways", async () => {
    cuda.setDevice(1);
    const stream = new Stream();
    cuda.setDevice(0);
    const mr = new CudaMemoryResource(); // device 0's: cuMemAlloc takes no stream
    const buffer = track(new DeviceBuffer({ size, stream, mr }));
    const bytes = pattern(size, 23);
    buffer.copyFromHost(bytes);
    expectBytes(buffer.copyToHost(new Uint8Array(size)), bytes);
    const other = pattern(size, 24);
    await buffer.copyFromHostAsync(other);
    expectBytes(await buffer.copyToHostAsync(), other);
    buffer.free();
    stream[Symbol.dispose]();
    mr[Symbol.dispose]();
  });

  it('the event loop keeps running during a long asynchronous copy', async () => {
    const big = (onGpu() ? 1024 : 64) << 20;
    const buffer = track(new DeviceBuffer({ size: big }));
    const target = new Uint8Array(big);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const copying = buffer.copyToHostAsync(target);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const ticksWhileCopying = ticks;
    await copying;
    clearInterval(timer);
    expect(ticksWhileCopying).toBeGreaterThan(0);
  });

  // On the real driver the DMAs run while the lanes fill and empty other chunks of the ring: a chunk
  // reused before its DMA ended would show as wrong bytes here (the fake driver copies at once).
  it.runIf(onGpu())('copies of many sizes, one after another, both ways, through the reused ring', () => {
    const sizes = [16 << 20, (17 << 20) + 1, (64 << 20) + 65535, (200 << 20) + 3, (33 << 20) - 5];
    for (const [n, size] of sizes.entries()) {
      const buffer = track(new DeviceBuffer({ size }));
      const bytes = pattern(size, 30 + n);
      buffer.copyFromHost(bytes);
      const back = new Uint8Array(size + 2).fill(9);
      buffer.copyToHost(new Uint8Array(back.buffer, 1, size));
      expectBytes(back.subarray(1, size + 1), bytes);
      expect([back[0], back[size + 1]]).toEqual([9, 9]);
      buffer.free();
    }
  });
});

// Found by the fuzzer (tooling/fuzz): a DataView over a detached ArrayBuffer (or out of bounds of
// a shrunk resizable one) made every copy throw V8's bare TypeError from its byteLength getter.
describe('host memory whose length the engine reports', () => {
  function detachedDataView(): DataView {
    const memory = new ArrayBuffer(8);
    const view = new DataView(memory);
    structuredClone(memory, { transfer: [memory] });
    return view;
  }

  function shrunkDataView(): DataView {
    // Resizable ArrayBuffers are ES2024; the project's lib is older.
    type Resizable = ArrayBuffer & { resize(byteLength: number): void };
    const ResizableArrayBuffer = ArrayBuffer as unknown as new (length: number, options: object) => Resizable;
    const memory = new ResizableArrayBuffer(8, { maxByteLength: 16 });
    const view = new DataView(memory, 4, 4);
    memory.resize(2);
    return view;
  }

  it('a detached or out-of-bounds DataView holds 0 bytes, as a typed array does', async () => {
    for (const view of [detachedDataView(), shrunkDataView()]) {
      const empty = DeviceBuffer.toDevice(view);
      expect(empty.size).toBe(0);
      empty.free();
      const buffer = DeviceBuffer.toDevice(new Uint8Array([1, 2, 3, 4]));
      buffer.copyFromHost(view); // nothing to copy
      expectBytes(buffer.toBytes(), [1, 2, 3, 4]);
      const tooSmall = thrown(() => buffer.copyToHost(view));
      expect(tooSmall).toBeInstanceOf(TypeError);
      expect(tooSmall.code).toBe('ERR_INVALID_ARG_VALUE');
      expect((await rejected(buffer.copyToHostAsync(view))).code).toBe('ERR_INVALID_ARG_VALUE');
      buffer.free();
    }
  });

  it('a view that lies about its byteLength is measured by the engine', () => {
    class Lying extends Uint8Array {
      override get byteLength(): number {
        return 1;
      }
    }
    const buffer = DeviceBuffer.toDevice(new Lying([1, 2, 3, 4]));
    expect(buffer.size).toBe(4);
    expectBytes(buffer.toBytes(), [1, 2, 3, 4]);
    expect(thrown(() => buffer.copyFromHost(new Lying(8))).code).toBe('ERR_INVALID_ARG_VALUE');
    buffer.free();
  });
});
