import { CudaError, DeviceBuffer } from '@rmmjs/core';
import { MappedMemory, PinnedMemory, hostAddress } from '@rmmjs/emm-plugin';
import { expectBytes, fakeCuda, onFake, pattern, thrown } from '@rmmjs/test-helpers';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeDelta, fixtures, runWithGc } from './support.js';

const shared = (bytes: number) => new SharedArrayBuffer(bytes);

// One page of shared WebAssembly memory: its buffer is a SharedArrayBuffer (this project's types have no WebAssembly).
function sharedWasmMemory(): SharedArrayBuffer {
  type Memory = new (descriptor: object) => { buffer: SharedArrayBuffer };
  const { Memory } = (globalThis as unknown as { WebAssembly: { Memory: Memory } }).WebAssembly;
  return new Memory({ initial: 1, maximum: 2, shared: true }).buffer;
}

describe('mempin', () => {
  const { manager } = fixtures();
  const fake = fakeDelta();
  afterEach(() => {
    if (onFake()) {
      fakeCuda.clearFaults();
      expect(fake.now().registrations).toBe(0);
      fake.since();
    }
  });

  it('page-locks a SharedArrayBuffer in place while the returned memory lives', () => {
    const owner = shared(8192);
    const memory = manager().mempin(owner, 0, 8192);
    expect(memory).toBeInstanceOf(PinnedMemory);
    expect(memory.hostPtr).toBe(hostAddress(owner));
    expect(memory.size).toBe(8192);
    expect(memory.hostOwner).toBe(owner);
    expect(memory.bytes.buffer).toBe(owner);
    expect(memory.bytes.length).toBe(8192);
    if (onFake()) expect(fake.now().registrations).toBe(1);
    memory.free();
    expect(memory.freed).toBe(true);
    expect(owner.byteLength).toBe(8192); // the owner's memory stays the owner's
    if (onFake()) expect(fake.now().registrations).toBe(0);
    expect(thrown(() => memory.hostPtr).code).toBe('ERR_RMM_DISPOSED');
  });

  it('takes the region from pointer (an offset, or an address as Numba does) and size', () => {
    const owner = shared(4096);
    const base = hostAddress(owner);
    const mgr = manager();
    const byOffset = mgr.mempin(owner, 1024, 512);
    expect(byOffset.hostPtr).toBe(base + 1024n);
    expect(byOffset.size).toBe(512);
    expect(byOffset.bytes.byteOffset).toBe(1024);
    const byAddress = mgr.mempin(owner, base + 2048n, 100);
    expect(byAddress.hostPtr).toBe(base + 2048n);
    const toTheEnd = mgr.mempin(owner, 3072);
    expect(toTheEnd.size).toBe(1024);
    for (const memory of [byOffset, byAddress, toTheEnd]) memory.free();
    const whole = mgr.mempin(owner);
    expect(whole.size).toBe(4096);
    whole.free();
  });

  it.each([
    ['a Uint8Array over part of a buffer', () => new Uint8Array(shared(4096), 1000, 2000), 1000, 2000],
    ['a Float64Array', () => new Float64Array(shared(512)), 0, 512],
    ['a DataView', () => new DataView(shared(300), 100), 100, 200],
    ['a Node.js Buffer', () => Buffer.from(shared(5000)), 0, 5000],
    ['a shared WebAssembly.Memory', () => sharedWasmMemory(), 0, 65536],
  ])('pins %s over a SharedArrayBuffer (its own bytes only)', (_, make, byteOffset, size) => {
    const owner = make();
    const memory = manager().mempin(owner);
    expect(memory.size).toBe(size);
    expect(memory.hostPtr).toBe(hostAddress(owner));
    if (byteOffset >= 0) expect(memory.bytes.byteOffset).toBe(byteOffset);
    memory.free();
  });

  it('mapped: a MappedMemory whose ptr the device uses, reading what the host wrote', () => {
    const owner = new Uint8Array(shared(2048));
    const memory = manager().mempin(owner, 0, 2048, { mapped: true });
    expect(memory).toBeInstanceOf(MappedMemory);
    const mapped = memory as MappedMemory;
    const bytes = pattern(2048, 21);
    owner.set(bytes);
    const device = new DeviceBuffer({ size: 2048 });
    device.copyFromDevice(mapped);
    expectBytes(device.toBytes(), bytes);
    device.free();
    expect(mapped.hostOwner).toBe(owner);
    mapped.free();
  });

  it('0 bytes: nothing is pinned', () => {
    const memory = manager().mempin(shared(16), 16, 0);
    expect(memory.size).toBe(0);
    expect(memory.hostPtr).toBe(0n);
    if (onFake()) expect(fake.now().calls('cuMemHostRegister_v2')).toBe(0);
    memory.free();
  });

  it('refuses owners that are not host bytes, and growable ones', () => {
    const mgr = manager();
    for (const owner of [{}, [1, 2, 3], 'bytes', null, 42]) {
      const error = thrown(() => mgr.mempin(owner as object, 0, 1));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
      expect(error.message).toContain('"owner"');
    }
    const growable = new (SharedArrayBuffer as any)(64, { maxByteLength: 128 });
    const error = thrown(() => mgr.mempin(growable, 0, 64));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe('ERR_INVALID_ARG_VALUE');
    expect(error.message).toBe('The argument "owner" is growable: its memory may move while it is pinned');
  });

  it.each([
    ['an ArrayBuffer', () => new ArrayBuffer(64)],
    ['a Uint8Array', () => new Uint8Array(64)],
    ['a DataView', () => new DataView(new ArrayBuffer(64))],
    ['a Node.js Buffer', () => Buffer.alloc(64)],
    ['a resizable ArrayBuffer', () => new (ArrayBuffer as any)(64, { maxByteLength: 128 })],
    ["memhostalloc's bytes", () => manager().memhostalloc(64).bytes],
  ])('refuses %s: its memory could be transferred away and freed while pinned', (_, make) => {
    fake.since();
    const owner = make();
    const error = thrown(() => manager().mempin(owner, 0, 64, { mapped: true }));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe('ERR_INVALID_ARG_VALUE');
    expect(error.message).toBe(
      'The argument "owner" is an ArrayBuffer or a view of one, whose memory can be transferred to another thread ' +
        'and freed while it is pinned: pin a SharedArrayBuffer (or a view of one), or take page-locked memory from ' +
        'memhostalloc',
    );
    if (onFake()) expect(fake.now().calls('cuMemHostRegister_v2')).toBe(0);
  });

  it('an ArrayBuffer owner posted to a worker that ends is never pinned (it used to crash the copy through it)', () => {
    const run = runWithGc('pins-then-posts', ['array-buffer']);
    expect(run.signal).toBe(null);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ refused: ['TypeError', 'ERR_INVALID_ARG_VALUE'] });
  });

  it('a SharedArrayBuffer owner posted to a worker that ends stays pinned: the device reads what the worker wrote', () => {
    const run = runWithGc('pins-then-posts', ['shared']);
    expect(run.signal).toBe(null);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ sevens: true });
  });

  it('refuses regions outside the owner and pointers that are neither offsets nor addresses', () => {
    const owner = shared(100);
    const base = hostAddress(owner);
    const mgr = manager();
    expect(thrown(() => mgr.mempin(owner, 0, 101)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => mgr.mempin(owner, 50, 51)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => mgr.mempin(owner, 101)).message).toContain('"pointer"');
    expect(thrown(() => mgr.mempin(owner, 50, 51)).message).toBe(
      'The value of "size" is out of range. It must be <= 50 (owner\'s bytes from pointer). Received 51',
    );
    expect(thrown(() => mgr.mempin(owner, base - 1n, 1)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => mgr.mempin(owner, base + 101n)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => mgr.mempin(owner, base + 90n, 20)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => mgr.mempin(owner, -1, 1)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => mgr.mempin(owner, '0' as unknown as number, 1)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => mgr.mempin(owner, 0, 1.5)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => mgr.mempin(owner, 0, 1, { mapped: 'yes' as unknown as boolean })).code).toBe(
      'ERR_INVALID_ARG_TYPE',
    );
  });

  it('refuses a detached owner', () => {
    const owner = new ArrayBuffer(64);
    const view = new DataView(owner, 8);
    structuredClone(owner, { transfer: [owner] });
    const error = thrown(() => manager().mempin(owner, 0, 64));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe('ERR_INVALID_ARG_VALUE');
    expect(error.message).toContain('detached');
    expect(thrown(() => manager().mempin(view)).code).toBe('ERR_INVALID_ARG_VALUE');
  });

  it("hostAddress of detached memory (or a DataView out of bounds) is ERR_INVALID_ARG_VALUE, not V8's TypeError", () => {
    const owner = new ArrayBuffer(64);
    const view = new Uint8Array(owner, 8);
    structuredClone(owner, { transfer: [owner] });
    for (const bytes of [owner, view]) {
      const error = thrown(() => hostAddress(bytes));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.code).toBe('ERR_INVALID_ARG_VALUE');
      expect(error.message).toContain('detached');
    }
    type Resizable = ArrayBuffer & { resize(length: number): void };
    const shrunk = new (ArrayBuffer as unknown as new (n: number, o: { maxByteLength: number }) => Resizable)(64, {
      maxByteLength: 64,
    });
    const outside = new DataView(shrunk, 32, 16);
    shrunk.resize(8);
    expect(thrown(() => hostAddress(outside)).code).toBe('ERR_INVALID_ARG_VALUE');
    expect(thrown(() => hostAddress({} as ArrayBuffer)).code).toBe('ERR_INVALID_ARG_TYPE');
  });

  it.runIf(onFake())("pinning a range that is pinned already is the driver's CudaError, and pins nothing", () => {
    const owner = shared(4096);
    const mgr = manager();
    const first = mgr.mempin(owner, 0, 2048);
    const error = thrown(() => mgr.mempin(owner, 1024, 2048));
    expect(error).toBeInstanceOf(CudaError);
    expect(error.cudaErrorName).toBe('CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED');
    expect(error.message).toContain('cuMemHostRegister_v2');
    expect(fake.now().registrations).toBe(1);
    first.free();
  });

  it.runIf(onFake())('a mapped pin whose device address cannot be had is unpinned again', () => {
    fakeCuda.failNext('cuMemHostGetDevicePointer_v2', 1, 'CUDA_ERROR_NOT_SUPPORTED');
    const error = thrown(() => manager().mempin(shared(64), 0, 64, { mapped: true }));
    expect(error).toBeInstanceOf(CudaError);
    expect(fake.now().registrations).toBe(0);
  });

  it.runIf(onFake())('keeps the owner alive while pinned, and unpins what the collector takes', () => {
    const run = runWithGc('pins-until-collected');
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual([1, true, 0]);
  });

  it.runIf(onFake())('unpins what the collector takes together with its manager', () => {
    const run = runWithGc('pins-with-its-manager');
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual([1, 0]);
  });
});
