// captureStacks: the JavaScript stack of each allocation made on this thread.
import { DeviceBuffer, getCurrentDeviceResource } from '@rmmjs/core';
import { TrackingResourceAdaptor } from '@rmmjs/tracking';
import { afterEach, describe, expect, it } from 'vitest';

function allocateThroughANamedFunction(mr: TrackingResourceAdaptor, nbytes: number): bigint {
  return mr.allocate(nbytes);
}

/** The block of getOutstandingAllocationsStr() that describes ptr. */
function blockOf(text: string, ptr: bigint): string {
  const start = text.indexOf(`0x${ptr.toString(16)}: `);
  expect(start).toBeGreaterThanOrEqual(0);
  const end = text.indexOf('\n\n', start);
  return text.slice(start, end === -1 ? undefined : end + 2);
}

describe('TrackingResourceAdaptor stacks', () => {
  const stackTraceLimit = Error.stackTraceLimit;
  afterEach(() => {
    Error.stackTraceLimit = stackTraceLimit;
  });

  it('with captureStacks: RMM layout, and the allocating function is in the stack', () => {
    const mr = new TrackingResourceAdaptor(getCurrentDeviceResource(), { captureStacks: true });
    const ptr = allocateThroughANamedFunction(mr, 1000);
    const text = mr.getOutstandingAllocationsStr();
    expect(text.startsWith(`0x${ptr.toString(16)}: 1000 B : callstack:\n#0 in `)).toBe(true);
    expect(text.endsWith('\n\n')).toBe(true);
    const frames = text.split('\n').slice(1, -2);
    frames.forEach((frame, i) => expect(frame).toMatch(new RegExp(`^#${i} in \\S`)));
    expect(frames.findIndex((frame) => frame.includes('allocateThroughANamedFunction'))).toBe(1);
    expect(frames[0]).toContain('allocate');
    mr.deallocate(ptr, 1000);
    expect(mr.getOutstandingAllocationsStr()).toBe('');
  });

  it('a DeviceBuffer made in a named test function carries that name', function makesABufferInANamedTest() {
    const mr = new TrackingResourceAdaptor(getCurrentDeviceResource(), { captureStacks: true });
    const buffer = new DeviceBuffer({ size: 2000, mr });
    const block = blockOf(mr.getOutstandingAllocationsStr(), buffer.ptr);
    expect(block).toMatch(/^0x[0-9a-f]+: 2000 B : callstack:\n#0 in /);
    expect(block).toContain('makesABufferInANamedTest');
    expect(block).toContain('DeviceBuffer');
    buffer.free();
  });

  it('each allocation has its own stack', () => {
    const mr = new TrackingResourceAdaptor(getCurrentDeviceResource(), { captureStacks: true });
    const first = allocateThroughANamedFunction(mr, 100);
    const second = (function anotherAllocatingFunction() {
      return mr.allocate(200);
    })();
    const text = mr.getOutstandingAllocationsStr();
    expect(blockOf(text, first)).toContain('allocateThroughANamedFunction');
    expect(blockOf(text, first)).not.toContain('anotherAllocatingFunction');
    expect(blockOf(text, second)).toContain('anotherAllocatingFunction');
    expect(blockOf(text, second)).not.toContain('allocateThroughANamedFunction');
    mr.deallocate(first, 100);
    mr.deallocate(second, 200);
  });

  it('Error.stackTraceLimit bounds the frames', () => {
    const mr = new TrackingResourceAdaptor(getCurrentDeviceResource(), { captureStacks: true });
    Error.stackTraceLimit = 2;
    const ptr = allocateThroughANamedFunction(mr, 64);
    Error.stackTraceLimit = stackTraceLimit;
    const text = mr.getOutstandingAllocationsStr();
    expect(text.match(/^#\d+ in /gm)).toHaveLength(2);
    expect(text).toContain('#1 in allocateThroughANamedFunction');
    mr.deallocate(ptr, 64);
  });

  it('when the JavaScript stack cannot be had (prepareStackTrace throws): native frames, nothing thrown', () => {
    const mr = new TrackingResourceAdaptor(getCurrentDeviceResource(), { captureStacks: true });
    const prepare = Error.prepareStackTrace;
    Error.prepareStackTrace = () => {
      throw new Error('no stacks today');
    };
    let ptr: bigint;
    try {
      ptr = allocateThroughANamedFunction(mr, 300);
    } finally {
      Error.prepareStackTrace = prepare;
    }
    const block = blockOf(mr.getOutstandingAllocationsStr(), ptr);
    expect(block).toMatch(/^0x[0-9a-f]+: 300 B : callstack:\n#0 in /);
    expect(block).toContain('rmmjs_tracking.node');
    expect(block).not.toContain('allocateThroughANamedFunction');
    mr.deallocate(ptr, 300);
  });

  it('an allocation made while a stack is captured gets native frames instead of recursing', () => {
    const mr = new TrackingResourceAdaptor(getCurrentDeviceResource(), { captureStacks: true });
    const prepare = Error.prepareStackTrace;
    const inner: bigint[] = [];
    Error.prepareStackTrace = (error, frames) => {
      inner.push(mr.allocate(8));
      return `Error\n    at ${frames[0].getFunctionName()} (somewhere)`;
    };
    let ptr: bigint;
    try {
      ptr = allocateThroughANamedFunction(mr, 16);
    } finally {
      Error.prepareStackTrace = prepare;
    }
    expect(inner).toHaveLength(1);
    const text = mr.getOutstandingAllocationsStr();
    expect(blockOf(text, ptr)).toMatch(/^0x[0-9a-f]+: 16 B : callstack:\n#0 in \S+ \(somewhere\)\n\n$/);
    expect(blockOf(text, inner[0])).toContain('rmmjs_tracking.node');
    mr.deallocate(ptr, 16);
    mr.deallocate(inner[0], 8);
    expect(mr.getAllocatedBytes()).toBe(0);
  });

  it('without captureStacks: no stacks', () => {
    const mr = new TrackingResourceAdaptor(getCurrentDeviceResource(), { captureStacks: false });
    const ptr = allocateThroughANamedFunction(mr, 1000);
    expect(mr.getOutstandingAllocationsStr()).toBe(`0x${ptr.toString(16)}: 1000 B\n`);
    mr.deallocate(ptr, 1000);
    const byDefault = new TrackingResourceAdaptor(getCurrentDeviceResource());
    const other = allocateThroughANamedFunction(byDefault, 10);
    expect(byDefault.getOutstandingAllocationsStr()).toBe(`0x${other.toString(16)}: 10 B\n`);
    byDefault.deallocate(other, 10);
  });
});
