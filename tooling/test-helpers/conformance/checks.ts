// The main thread's checks and workloads, shared by the groups of cases.
import type { DeviceMemoryResource, Stream as StreamType } from '@rmmjs/core';
import { expect } from 'vitest';
import { equalBytes, expectBytes, random, thrown } from '../basics.js';
import { core } from '../resources.js';
import { withSeed } from './seed.js';
import { fillPattern, randomSize } from './common.js';

const { DeviceBuffer, Stream } = core;

export const hex = (ptr: bigint): string => `0x${ptr.toString(16)}`;

/** Asserts the blocks [ptr, ptr + size) are non-null, 256-byte aligned and pairwise disjoint. */
export function expectPlaced(ptrs: bigint[], sizes: number[]): void {
  const blocks = ptrs.map((ptr, i) => ({ ptr, end: ptr + BigInt(sizes[i]) })).sort((a, b) => (a.ptr < b.ptr ? -1 : 1));
  for (const [i, { ptr, end }] of blocks.entries()) {
    if (ptr === 0n || ptr % 256n !== 0n) throw new Error(`pointer ${hex(ptr)} is null or not 256-byte aligned`);
    const next = blocks[i + 1];
    if (next !== undefined && next.ptr < end)
      throw new Error(`blocks at ${hex(ptr)} (to ${hex(end)}) and ${hex(next.ptr)} overlap`);
  }
}

/** Asserts fn throws an instance of Class with `code` (and `text` in its message); returns the error. */
export function expectError(
  fn: () => unknown,
  Class: abstract new (...args: any[]) => Error,
  code: string,
  text?: string,
) {
  const error = thrown(fn);
  expect(error).toBeInstanceOf(Class);
  expect(error.code).toBe(code);
  if (text !== undefined) expect(error.message).toContain(text);
  return error;
}

/** Runs fn on the default stream (undefined) and on a new stream, then synchronises and disposes that. */
export function onDefaultAndNewStream(fn: (stream: StreamType | undefined) => void): void {
  const stream = new Stream();
  try {
    fn(undefined);
    fn(stream);
    stream.synchronize();
  } finally {
    stream[Symbol.dispose]();
  }
}

/** A DeviceBuffer with a pattern over mr on stream, read back and freed. */
export function roundTrip(mr: DeviceMemoryResource, size: number, seed: number, stream?: StreamType): void {
  const data = fillPattern(size, seed);
  const buffer = new DeviceBuffer({ data, mr, stream });
  const back = buffer.toBytes();
  buffer.free();
  expectBytes(back, data);
}

export interface RandomSequence {
  seed: number;
  stream?: StreamType;
  maxSize: number;
  steps?: number;
  maxLive?: number;
}

/**
 * RMM's mixed random allocation test with data: DeviceBuffers of random sizes (1 B to maxSize),
 * each filled with its own pattern, freed in random order after the pattern is checked; every
 * new block must be aligned and overlap no live one.
 */
export function randomSequence(
  mr: DeviceMemoryResource,
  { seed, stream, maxSize, steps = 160, maxLive = 12 }: RandomSequence,
) {
  const next = random(seed);
  const live: { buffer: InstanceType<typeof DeviceBuffer>; data: Uint8Array }[] = [];
  const release = (index: number) => {
    const [{ buffer, data }] = live.splice(index, 1);
    const { ptr } = buffer;
    const intact = equalBytes(buffer.toBytes(), data);
    buffer.free();
    if (!intact) throw new Error(`the ${data.length} bytes at ${hex(ptr)} changed before their free`);
  };
  try {
    for (let step = 0; step < steps; step++) {
      if (live.length >= maxLive || (live.length > 0 && next() < 0.47)) {
        release(Math.floor(next() * live.length));
        continue;
      }
      const data = fillPattern(randomSize(next, maxSize), Math.floor(next() * 2 ** 32));
      live.push({ buffer: new DeviceBuffer({ data, mr, stream }), data });
      expectPlaced(
        live.map((item) => item.buffer.ptr),
        live.map((item) => item.data.length),
      );
    }
    while (live.length > 0) release(live.length - 1);
  } catch (error) {
    for (const { buffer } of live) buffer.free();
    throw withSeed(error);
  }
}
