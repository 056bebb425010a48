// A DeviceBuffer operation whose allocation or free runs JavaScript that touches the same buffer
// (frees it, resizes it, copies it, detaches the host memory it copies from): never a crash, a
// double free or stale bytes; the operation fails with ERR_RMM_DISPOSED where the buffer was freed.
import { DeviceBuffer, RMMError, getCurrentDeviceResource } from '@rmmjs/core';
import { CallbackMemoryResource } from '@rmmjs/callback';
import { expectBytes, pattern, runInProcess, thrown } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

type Hook = (() => void) | undefined;

/** A CallbackMemoryResource over the current resource that runs a one-shot hook before its next allocate or deallocate. */
function hooked() {
  const base = getCurrentDeviceResource();
  const live = new Map<bigint, number>();
  const state = { onAllocate: undefined as Hook, onDeallocate: undefined as Hook, deallocations: 0 };
  const mr = new CallbackMemoryResource(
    (nbytes, stream) => {
      const hook = state.onAllocate;
      state.onAllocate = undefined;
      hook?.();
      const ptr = base.allocate(nbytes, stream);
      live.set(ptr, nbytes);
      return ptr;
    },
    (ptr, nbytes, stream) => {
      const hook = state.onDeallocate;
      state.onDeallocate = undefined;
      hook?.();
      expect(live.get(ptr)).toBe(nbytes);
      live.delete(ptr);
      state.deallocations++;
      base.deallocate(ptr, nbytes, stream);
    },
  );
  return { mr, live, state };
}

function expectDisposed(error: any): void {
  expect(error).toBeInstanceOf(RMMError);
  expect(error.code).toBe('ERR_RMM_DISPOSED');
}

type Resizable = ArrayBuffer & { resize(length: number): void };
const resizableBuffer = (length: number) =>
  new (ArrayBuffer as unknown as new (n: number, o: { maxByteLength: number }) => Resizable)(length, {
    maxByteLength: length,
  });

describe('a DeviceBuffer made by JavaScript inside an allocation', () => {
  it("copy(): one made by the resource's allocate callback is its own, not a second copy (nothing leaked)", () => {
    const { mr, live, state } = hooked();
    const source = new DeviceBuffer({ data: pattern(100, 3), mr });
    let inner: DeviceBuffer | undefined;
    state.onAllocate = () => {
      inner = new DeviceBuffer({ size: 0, mr });
    };
    const copy = source.copy();
    expect(inner?.size).toBe(0);
    expect(inner?.ptr).toBe(0n);
    expect(copy.size).toBe(100);
    expectBytes(copy.toBytes(), pattern(100, 3));
    expect(live.size).toBe(2); // the source and one copy
    for (const buffer of [source, copy, inner!]) buffer.free();
    expect(live.size).toBe(0);
  });
});

describe('resize and reserve whose allocation runs JavaScript', () => {
  for (const grow of ['resize', 'reserve'] as const) {
    it(`${grow}: the allocation frees the buffer -> ERR_RMM_DISPOSED, all memory returned once`, () => {
      const { mr, live, state } = hooked();
      const buffer = new DeviceBuffer({ data: pattern(1000, 1), mr });
      const other = new DeviceBuffer({ data: pattern(300, 2), mr });
      state.onAllocate = () => {
        other.free();
        buffer.free();
      };
      expectDisposed(thrown(() => buffer[grow](5000)));
      expect(buffer.freed).toBe(true);
      expect(other.freed).toBe(true);
      expect(live.size).toBe(0);
      expect(state.deallocations).toBe(3);
      expectDisposed(thrown(() => buffer.size));
    });

    it(`${grow}: the old memory's deallocate frees the buffer -> ERR_RMM_DISPOSED, nothing leaked`, () => {
      const { mr, live, state } = hooked();
      const buffer = new DeviceBuffer({ data: pattern(1000, 3), mr });
      state.onDeallocate = () => buffer.free();
      expectDisposed(thrown(() => buffer[grow](5000)));
      expect(buffer.freed).toBe(true);
      expect(live.size).toBe(0);
    });

    it(`${grow}: the allocation moves the same buffer -> that inner move is refused, the outer one works`, () => {
      const { mr, live, state } = hooked();
      const buffer = new DeviceBuffer({ data: pattern(1000, 4), mr });
      let inner: any;
      state.onAllocate = () => {
        inner = thrown(() => buffer.resize(8000));
      };
      buffer[grow](5000);
      expect(inner).toBeInstanceOf(RMMError);
      expect(inner.code).toBe('ERR_RMM_LOGIC');
      expect(inner.message).toContain('being moved');
      expect(buffer.capacity()).toBe(5000);
      expectBytes(buffer.toBytes().subarray(0, 1000), pattern(1000, 4));
      buffer.free();
      expect(live.size).toBe(0);
    });
  }
});

describe('new DeviceBuffer({ data, mr }) whose allocation detaches or shrinks data', () => {
  it('is ERR_INVALID_ARG_VALUE and returns the memory', () => {
    const { mr, live, state } = hooked();
    const data = pattern(4096, 5);
    const arrayBuffer = data.buffer as ArrayBuffer;
    state.onAllocate = () => structuredClone(arrayBuffer, { transfer: [arrayBuffer] });
    const error = thrown(() => new DeviceBuffer({ data, mr }));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe('ERR_INVALID_ARG_VALUE');
    expect(error.message).toContain('"options.data"');
    expect(live.size).toBe(0);

    const shrinking = new Uint8Array(resizableBuffer(4096));
    state.onAllocate = () => (shrinking.buffer as Resizable).resize(10);
    expect(thrown(() => new DeviceBuffer({ data: shrinking, mr })).code).toBe('ERR_INVALID_ARG_VALUE');
    expect(live.size).toBe(0);
    expect(state.deallocations).toBe(2);
  });
});

describe('copy() whose allocation touches the source', () => {
  it('frees it -> ERR_RMM_DISPOSED, never a copy of stale bytes; nothing leaked', () => {
    const { mr, live, state } = hooked();
    const source = new DeviceBuffer({ data: pattern(2000, 6), mr });
    state.onAllocate = () => source.free();
    expectDisposed(thrown(() => source.copy()));
    expect(source.freed).toBe(true);
    expect(live.size).toBe(0);
  });

  it('writes to it -> the copy has the bytes written; moving it is refused', () => {
    const { mr, live, state } = hooked();
    const source = new DeviceBuffer({ data: pattern(2000, 7), mr });
    let inner: any;
    state.onAllocate = () => {
      source.copyFromHost(pattern(2000, 8));
      inner = thrown(() => source.reserve(100000));
    };
    const copy = source.copy();
    expect(inner.code).toBe('ERR_RMM_LOGIC');
    expectBytes(copy.toBytes(), pattern(2000, 8));
    copy.free();
    source.free();
    expect(live.size).toBe(0);
  });
});

describe('free() whose deallocate runs JavaScript', () => {
  it('a second free() of the same buffer from inside is ERR_RMM_DISPOSED; the memory goes once', () => {
    const { mr, live, state } = hooked();
    const buffer = new DeviceBuffer({ size: 512, mr });
    let inner: any;
    state.onDeallocate = () => {
      inner = thrown(() => buffer.free());
    };
    buffer.free();
    expectDisposed(inner);
    expect(live.size).toBe(0);
    expect(state.deallocations).toBe(1);
  });

  it('a deallocate that throws: the same error, the buffer keeps its memory, free() again works', () => {
    const { mr, live, state } = hooked();
    const buffer = new DeviceBuffer({ data: pattern(512, 9), mr });
    const failure = new Error('not now');
    state.onDeallocate = () => {
      throw failure;
    };
    expect(thrown(() => buffer.free())).toBe(failure);
    expect(buffer.freed).toBe(false);
    expectBytes(buffer.toBytes(), pattern(512, 9));
    buffer.free();
    expect(buffer.freed).toBe(true);
    expect(live.size).toBe(0);
  });
});

describe('worker.terminate() while the worker is inside DeviceBuffer.free()', () => {
  it('the worker ends cleanly: no double free in its teardown', () => {
    const run = runInProcess(new URL('./children/terminates-in-free.js', import.meta.url));
    expect(run.stderr).not.toMatch(/Sanitizer|double free|corrupted|invalid chunk|Segmentation/);
    expect(run.signal).toBe(null);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('ok');
  });
});
