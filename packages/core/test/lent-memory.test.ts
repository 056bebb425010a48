// Memory that someone other than a resource owns (rmmjs_memory, rmmjs_buffer_guard in abi.h):
// DeviceBuffers over memory a plain C addon lends (test/addon/lender.c), holds on a buffer's memory
// that the addon takes and releases, and guards that refuse free().
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { DeviceBuffer, RMMError, Stream, getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import {
  adoptMemory,
  coreApi,
  guardBuffer,
  holdMemory,
  loadAddon,
  resourceHandle,
  wrapResource,
  type BufferGuardHandle,
  type MemoryHandle,
  type ResourceHandle,
} from '@rmmjs/core/addon';
import { expectBytes, pattern, runInProcess, thrown } from '@rmmjs/test-helpers';
import { afterEach, describe, expect, it } from 'vitest';

interface Lender {
  init(api: unknown): void;
  lend(bytes: number, device: number): MemoryHandle;
  take(handle: MemoryHandle): number;
  pointer(id: number): bigint;
  bytes(id: number): number;
  write(id: number, offset: number, byte: number): number;
  read(id: number, offset: number): number;
  release(id: number): void;
  releaseOnThread(id: number): void;
  released(): number;
  guard(message: string): BufferGuardHandle;
  setRefusing(refusing: boolean): void;
  guardEvents(): [checks: number, destroyed: number];
}

const child = (name: string) => new URL(`./children/${name}.js`, import.meta.url);
const lenderPath = fileURLToPath(
  new URL('../build/test-addons/rmmjs_test_lender/build/Release/rmmjs_test_lender.node', import.meta.url),
);
const lender = createRequire(import.meta.url)(lenderPath) as Lender;
lender.init(coreApi);

interface Counts {
  allocations: number;
  deallocations: number;
  bytesOutstanding: number;
}
const counting = loadAddon<{ create(upstream: ResourceHandle): ResourceHandle; counts(mr: ResourceHandle): Counts }>(
  import.meta.url,
  '../build/test-addons/rmmjs_counting_adaptor',
  'counting-adaptor',
);

// The current device resource counted, for the allocations copies and growth make.
function countCurrent() {
  const previous = getCurrentDeviceResource();
  const mr = wrapResource(counting.create(resourceHandle(previous, 'upstream')));
  setCurrentDeviceResource(mr);
  return {
    counts: () => counting.counts(resourceHandle(mr, 'mr')),
    restore: () => {
      setCurrentDeviceResource(previous);
      mr[Symbol.dispose]();
    },
  };
}

afterEach(() => lender.setRefusing(false));

describe('a DeviceBuffer over lent memory (adoptMemory)', () => {
  it('uses the memory where it is, copies in and out, and releases it once when freed', () => {
    const before = lender.released();
    const handle = lender.lend(1000, 0);
    const buffer = adoptMemory(handle);
    expect(buffer).toBeInstanceOf(DeviceBuffer);
    expect(buffer.size).toBe(1000);
    expect(buffer.capacity()).toBe(1000);
    expect(buffer.device).toBe(0);
    expect(buffer.ptr % 256n).toBe(0n);
    expectBytes(buffer.toBytes(), new Uint8Array(1000).fill(0x11)); // what the lender wrote
    const data = pattern(1000, 7);
    buffer.copyFromHost(data);
    expectBytes(buffer.toBytes(), data);
    expect(lender.released()).toBe(before);
    buffer.free();
    expect(lender.released()).toBe(before + 1);
    expect(thrown(() => buffer.free()).code).toBe('ERR_RMM_DISPOSED');
    expect(lender.released()).toBe(before + 1);
  });

  it('takes the memory out of the handle: a second adoption is ERR_RMM_DISPOSED, and what is not a handle a TypeError', () => {
    const handle = lender.lend(256, 0);
    const buffer = adoptMemory(handle);
    const again = thrown(() => adoptMemory(handle));
    expect(again).toBeInstanceOf(RMMError);
    expect(again.code).toBe('ERR_RMM_DISPOSED');
    expect(again.message).toBe('memory was taken already and cannot be used again');
    buffer.free();
    for (const bad of [{}, null, 42, lender.guard('x')]) {
      const error = thrown(() => adoptMemory(bad as never));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
      expect(error.message).toBe('memory must be a memory handle');
    }
    expect(thrown(() => adoptMemory(lender.lend(1, 0), null as never)).code).toBe('ERR_INVALID_ARG_TYPE');
  });

  it('refuses memory on a device that does not exist, and releases it', () => {
    const before = lender.released();
    const error = thrown(() => adoptMemory(lender.lend(64, 1000)));
    expect(error).toBeInstanceOf(RangeError);
    expect(error.code).toBe('ERR_OUT_OF_RANGE');
    expect(error.message).toContain('Invalid device 1000');
    expect(lender.released()).toBe(before + 1);
  });

  it('lends nothing for 0 bytes, and still releases once', () => {
    const before = lender.released();
    const buffer = adoptMemory(lender.lend(0, 0));
    expect(buffer.size).toBe(0);
    expect(buffer.ptr).toBe(0n);
    buffer.free();
    expect(lender.released()).toBe(before + 1);
  });

  it('copies and grows into memory of the current resource, and releases the lent memory when it moves', () => {
    const counted = countCurrent();
    try {
      const before = lender.released();
      const stream = new Stream();
      const buffer = adoptMemory(lender.lend(512, 0), { stream });
      expect(buffer.stream).toBe(stream);
      const data = pattern(512, 3);
      buffer.copyFromHost(data);
      const copy = buffer.copy();
      expect(counted.counts()).toEqual({ allocations: 1, deallocations: 0, bytesOutstanding: 512 });
      expectBytes(copy.toBytes(), data);
      buffer.resize(100); // within the capacity: stays where it is
      expect(lender.released()).toBe(before);
      buffer.resize(2000);
      expect(lender.released()).toBe(before + 1);
      expect(counted.counts()).toEqual({ allocations: 2, deallocations: 0, bytesOutstanding: 2512 });
      expectBytes(buffer.toBytes().subarray(0, 100), data.subarray(0, 100));
      buffer.free();
      copy.free();
      expect(counted.counts()).toEqual({ allocations: 2, deallocations: 2, bytesOutstanding: 0 });
      expect(lender.released()).toBe(before + 1);
      stream[Symbol.dispose]();
    } finally {
      counted.restore();
    }
  });

  it('is released by the collector when the buffer is dropped without free()', () => {
    const run = runInProcess(child('collects-lent-memory'), { args: [lenderPath], nodeArgs: ['--expose-gc'] });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('21');
  });
});

describe("holds on a buffer's memory (holdMemory)", () => {
  it('keep the memory after free(): native code reads and writes it, and its release gives it back', () => {
    const counted = countCurrent();
    try {
      const buffer = new DeviceBuffer({ data: pattern(3000, 5) });
      const id = lender.take(holdMemory(buffer));
      expect(lender.pointer(id)).toBe(buffer.ptr);
      expect(lender.bytes(id)).toBe(3000);
      expect(lender.read(id, 2999)).toBe(pattern(3000, 5)[2999]);
      buffer.free();
      expect(counted.counts()).toEqual({ allocations: 1, deallocations: 0, bytesOutstanding: 3000 });
      lender.write(id, 10, 0xee);
      expect(lender.read(id, 10)).toBe(0xee);
      lender.release(id);
      expect(counted.counts()).toEqual({ allocations: 1, deallocations: 1, bytesOutstanding: 0 });
    } finally {
      counted.restore();
    }
  });

  // Found by the fuzzer: a buffer adopted from a hold of an empty buffer had a pointer and capacity 0.
  it('a hold of an empty buffer adopts as an empty buffer (pointer 0n), and its release still runs', () => {
    const counted = countCurrent();
    try {
      const buffer = new DeviceBuffer({ data: pattern(512, 2) });
      buffer.resize(0); // keeps its memory (capacity 512)
      const adopted = adoptMemory(holdMemory(buffer));
      expect([adopted.ptr, adopted.size, adopted.capacity()]).toEqual([0n, 0, 0]);
      expect(adopted.toBytes()).toEqual(new Uint8Array(0));
      buffer.free();
      expect(counted.counts().bytesOutstanding).toBe(512); // the adopted share holds it
      adopted.free();
      expect(counted.counts()).toEqual({ allocations: 1, deallocations: 1, bytesOutstanding: 0 });
    } finally {
      counted.restore();
    }
  });

  it('outlive a move: the buffer grows into new memory, the holder keeps the old until it lets go', () => {
    const counted = countCurrent();
    try {
      const buffer = new DeviceBuffer({ data: pattern(1000, 9) });
      const old = buffer.ptr;
      const first = lender.take(holdMemory(buffer));
      const second = lender.take(holdMemory(buffer));
      buffer.resize(5000);
      expect(buffer.ptr).not.toBe(old);
      expect(counted.counts().bytesOutstanding).toBe(6000);
      expect(lender.read(first, 999)).toBe(pattern(1000, 9)[999]);
      lender.release(first);
      expect(counted.counts().bytesOutstanding).toBe(6000);
      lender.releaseOnThread(second); // the last holder, on a thread without JavaScript
      expect(counted.counts()).toEqual({ allocations: 2, deallocations: 1, bytesOutstanding: 5000 });
      buffer.free();
      expect(counted.counts().bytesOutstanding).toBe(0);
    } finally {
      counted.restore();
    }
  });

  it('of lent memory: the lender gets it back when the buffer and every holder let go', () => {
    const before = lender.released();
    const buffer = adoptMemory(lender.lend(256, 0));
    const id = lender.take(holdMemory(buffer));
    expect(lender.pointer(id)).toBe(buffer.ptr);
    buffer.free();
    expect(lender.released()).toBe(before);
    lender.releaseOnThread(id);
    expect(lender.released()).toBe(before + 1);
  });

  it('is refused for a freed buffer and for what is not a DeviceBuffer', () => {
    const buffer = new DeviceBuffer({ size: 10 });
    buffer.free();
    expect(thrown(() => holdMemory(buffer)).code).toBe('ERR_RMM_DISPOSED');
    const error = thrown(() => holdMemory({} as DeviceBuffer));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
  });

  it('a hold nobody takes is released by the collector', () => {
    const run = runInProcess(child('collects-a-hold'), { nodeArgs: ['--expose-gc'] });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('ok');
  });
});

describe('buffer guards (guardBuffer)', () => {
  it('refuse free() with their error while they refuse; the buffer keeps its memory and can be freed later', () => {
    const [checks, destroyed] = lender.guardEvents();
    const buffer = new DeviceBuffer({ data: pattern(100, 1) });
    guardBuffer(buffer, lender.guard('still mapped by another process'));
    lender.setRefusing(true);
    const error = thrown(() => buffer.free());
    expect(error).toBeInstanceOf(RMMError);
    expect(error.code).toBe('ERR_RMM_LOGIC');
    expect(error.message).toBe('still mapped by another process');
    expect(buffer.freed).toBe(false);
    expectBytes(buffer.toBytes(), pattern(100, 1));
    expect(thrown(() => buffer.resize(1000)).message).toBe('still mapped by another process');
    expect(buffer.size).toBe(100);
    buffer.resize(50); // within the capacity: nothing moves, nothing to ask
    lender.setRefusing(false);
    buffer.free();
    expect(lender.guardEvents()).toEqual([checks + 3, destroyed + 1]);
  });

  it('guard the memory they were given: after a move they are gone', () => {
    const [, destroyed] = lender.guardEvents();
    const buffer = new DeviceBuffer({ size: 100 });
    guardBuffer(buffer, lender.guard('no'));
    buffer.resize(1000);
    expect(lender.guardEvents()[1]).toBe(destroyed + 1);
    lender.setRefusing(true);
    buffer.free();
  });

  it('are taken from their handle once', () => {
    const a = new DeviceBuffer({ size: 10 });
    const b = new DeviceBuffer({ size: 10 });
    const guard = lender.guard('no');
    guardBuffer(a, guard);
    expect(thrown(() => guardBuffer(b, guard)).code).toBe('ERR_RMM_DISPOSED');
    expect(thrown(() => guardBuffer(b, lender.lend(1, 0) as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    a.free();
    b.free();
  });
});
