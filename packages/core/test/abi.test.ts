import { createRequire } from 'node:module';
import { DEFAULT_STREAM, DeviceMemoryResource, Stream, getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { native, resourceHandle } from '@rmmjs/core/internal';
import { describe, expect, it } from 'vitest';
import { availableCases } from './resource-table.js';

interface Consumer {
  init(api: unknown): string;
  roundTripCurrent(nbytes: number): boolean;
  roundTripWith(handle: unknown, nbytes: number): boolean;
  typeNameOfCurrent(): string;
  failingAllocation(nbytes: number): [number, string];
  streamId(handle: bigint): bigint;
}

const consumer = createRequire(import.meta.url)('../build/Release/rmmjs_test_consumer.node') as Consumer;

describe('the C ABI, used by a plain C addon', () => {
  it('accepts core API table 1.x', () => {
    expect(consumer.init(native.coreApi)).toBe(native.abiVersion);
    expect(native.abiVersion).toBe('1.2');
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

  it('sees failures as status codes with a message', () => {
    const [status, message] = consumer.failingAllocation(2 ** 50);
    expect(status).toBe(1); // RMMJS_ERR_OUT_OF_MEMORY
    expect(message).toContain(String(2 ** 50));
  });
});
