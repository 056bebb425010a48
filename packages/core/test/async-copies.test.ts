// Asynchronous copies while JavaScript detaches or shrinks the host memory they use: the copy
// never touches memory that is gone (no crash, no bytes written into someone else's memory); the
// promise rejects with ERR_INVALID_ARG_VALUE.
import { DeviceBuffer } from '@rmmjs/core';
import { MiB, expectBytes, fakeCuda, onFake, pattern, rejected } from '@rmmjs/test-helpers';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

// Two slices of an asynchronous copy in host mode (16 MiB each) and, on a GPU, a copy staged
// through the pinned chunks (from 16 MiB, in chunks of 4 MiB): keep it above both thresholds.
const size = 20 * MiB;

function expectDetachError(error: any, name: string): void {
  expect(error).toBeInstanceOf(TypeError);
  expect(error.code).toBe('ERR_INVALID_ARG_VALUE');
  expect(error.message).toContain(`"${name}"`);
  expect(error.message).toContain('detached or shrunk');
}

type Resizable = ArrayBuffer & { resize(length: number): void };
const resizableBuffer = (length: number, maxByteLength: number) =>
  new (ArrayBuffer as unknown as new (n: number, o: { maxByteLength: number }) => Resizable)(length, { maxByteLength });

function resizable(bytes: Uint8Array): [Uint8Array, Resizable] {
  const arrayBuffer = resizableBuffer(bytes.length, bytes.length);
  const view = new Uint8Array(arrayBuffer);
  view.set(bytes);
  return [view, arrayBuffer];
}

/** Transfers the memory of view away (view is detached); returns the new owner. */
const transferAway = (view: Uint8Array) => {
  const arrayBuffer = view.buffer as ArrayBuffer;
  return structuredClone(arrayBuffer, { transfer: [arrayBuffer] });
};

describe('asynchronous copies and host memory that goes away', () => {
  beforeAll(() => {
    // The first large copy makes the pinned staging (on a GPU), which stays for the process.
    DeviceBuffer.toDevice(new Uint8Array(size)).free();
  });
  let liveBefore = 0;
  afterEach(() => {
    if (onFake()) expect(fakeCuda.stats().liveAllocations).toBe(liveBefore);
  });
  const track = () => {
    if (onFake()) liveBefore = fakeCuda.stats().liveAllocations;
  };

  it('copyToHostAsync: a target transferred away is never written', async () => {
    track();
    const buffer = DeviceBuffer.toDevice(pattern(size, 1));
    const target = new Uint8Array(size);
    const copying = buffer.copyToHostAsync(target);
    const moved = new Uint8Array(transferAway(target));
    expect(target.byteLength).toBe(0);
    expectDetachError(await rejected(copying), 'target');
    expectBytes(moved, new Uint8Array(size)); // all zero
    buffer.free();
  });

  it('copyToHostAsync: a resizable target shrunk during the copy', async () => {
    track();
    const buffer = DeviceBuffer.toDevice(pattern(size, 2));
    const arrayBuffer = resizableBuffer(size, size);
    const copying = buffer.copyToHostAsync(new Uint8Array(arrayBuffer));
    arrayBuffer.resize(4096);
    expectDetachError(await rejected(copying), 'target');
    buffer.free();
  });

  it('copyFromHostAsync: a source transferred or shrunk during the copy', async () => {
    track();
    const buffer = new DeviceBuffer({ size });
    const source = pattern(size, 3);
    const copying = buffer.copyFromHostAsync(source);
    const moved = new Uint8Array(transferAway(source));
    moved.fill(7);
    expectDetachError(await rejected(copying), 'bytes');
    const [shrinking, shrinkingBuffer] = resizable(pattern(size, 4));
    const copying2 = buffer.copyFromHostAsync(shrinking);
    shrinkingBuffer.resize(0);
    expectDetachError(await rejected(copying2), 'bytes');
    buffer.free();
  });

  it('toDeviceAsync: the source goes away; the new buffer is freed, nothing leaks', async () => {
    track();
    const [source, sourceBuffer] = resizable(pattern(size, 5));
    const creating = DeviceBuffer.toDeviceAsync(source);
    sourceBuffer.resize(100);
    expectDetachError(await rejected(creating), 'bytes');
    const other = pattern(size, 6);
    const creating2 = DeviceBuffer.toDeviceAsync(other);
    transferAway(other);
    expectDetachError(await rejected(creating2), 'bytes');
  });

  it('memory that grows, or is only moved after the copy, is fine', async () => {
    track();
    const buffer = DeviceBuffer.toDevice(pattern(size, 8));
    const arrayBuffer = resizableBuffer(size, 2 * size);
    const target = new Uint8Array(arrayBuffer, 0, size);
    const copying = buffer.copyToHostAsync(target);
    arrayBuffer.resize(2 * size);
    expect(await copying).toBe(target);
    expectBytes(target, pattern(size, 8));
    const moved = structuredClone(arrayBuffer, { transfer: [arrayBuffer] });
    expectBytes(new Uint8Array(moved, 0, size), pattern(size, 8));
    const shared = new Uint8Array(new SharedArrayBuffer(size));
    await buffer.copyToHostAsync(shared);
    expectBytes(shared, pattern(size, 8));
    buffer.free();
  });

  it('free() during a copy whose target is detached still frees, once', async () => {
    track();
    const buffer = DeviceBuffer.toDevice(pattern(size, 9));
    const target = new Uint8Array(size);
    const copying = buffer.copyToHostAsync(target);
    buffer.free();
    transferAway(target);
    expectDetachError(await rejected(copying), 'target');
    expect(buffer.freed).toBe(true);
  });
});
