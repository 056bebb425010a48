// transfer() of a view from fromDLPack: the memory's own resource decides, not the view's. Memory of
// a CallbackMemoryResource can be freed only on its thread, so a view of it (through any number of
// toDLPack/fromDLPack rounds) is refused as the buffer itself is; once the view's memory is its own
// (it grew and moved), or for any other resource, transfer() goes ahead.
import { DeviceBuffer, RMMError } from '@rmmjs/core';
import { fromDLPack, toDLPack } from '@rmmjs/interop';
import { disposeAfterEach, recordingCallbackResource, thrown } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

const keep = disposeAfterEach();

function callbackResource() {
  const { calls, mr } = recordingCallbackResource();
  return { calls, mr: keep(mr) };
}

const refusal =
  'DeviceBuffer cannot be transferred: its memory belongs to a resource that frees memory through JavaScript, ' +
  'which runs only on the thread that created it; copy the bytes into a buffer of another resource';

// A view of buffer's memory after `rounds` rounds of toDLPack and fromDLPack.
function viewOf(buffer: DeviceBuffer, rounds: number): DeviceBuffer {
  let view = buffer;
  for (let i = 0; i < rounds; i++) {
    const next = fromDLPack(toDLPack(view));
    if (view !== buffer) view.free();
    view = next;
  }
  return view;
}

describe('transfer() of a view from fromDLPack', () => {
  it.each([1, 2, 3])(
    'of memory of a CallbackMemoryResource (%i round(s) of toDLPack/fromDLPack) is refused with ERR_RMM_WRONG_THREAD; nothing changes',
    (rounds) => {
      const { calls, mr } = callbackResource();
      const buffer = new DeviceBuffer({ data: new Uint8Array([1, 2, 3]), mr });
      const view = viewOf(buffer, rounds);
      const error = thrown(() => view.transfer());
      expect(error).toBeInstanceOf(RMMError);
      expect(error.code).toBe('ERR_RMM_WRONG_THREAD');
      expect(error.message).toBe(refusal);
      expect([view.freed, [...view.toBytes()]]).toEqual([false, [1, 2, 3]]);
      buffer.free();
      expect(calls).toEqual(['allocate 3']); // the view still holds the memory
      view.free();
      expect(calls).toEqual(['allocate 3', 'deallocate 3']);
    },
  );

  it('goes ahead once the view grew out of that memory (its memory is the current resource now)', () => {
    const { calls, mr } = callbackResource();
    const buffer = new DeviceBuffer({ data: new Uint8Array([4, 5]), mr });
    const view = viewOf(buffer, 2);
    buffer.free();
    view.resize(4096);
    expect(calls).toEqual(['allocate 2', 'deallocate 2']);
    const token = view.transfer();
    expect(view.freed).toBe(true);
    expect(DeviceBuffer.reclaim(token)).toBe(true);
  });

  it('goes ahead for memory of any other resource', () => {
    const buffer = new DeviceBuffer({ data: new Uint8Array([6, 7, 8]) });
    const view = viewOf(buffer, 2);
    buffer.free();
    const token = view.transfer();
    const claimed = DeviceBuffer.fromTransferred(token);
    expect([...claimed.toBytes()]).toEqual([6, 7, 8]);
    claimed.free();
  });
});
