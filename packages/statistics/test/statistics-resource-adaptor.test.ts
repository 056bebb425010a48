import {
  DeviceBuffer,
  OutOfMemoryError,
  getCurrentDeviceResource,
  setCurrentDeviceResource,
  Stream,
} from '@rmmjs/core';
import { CallbackMemoryResource } from '@rmmjs/callback';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { Statistics, StatisticsResourceAdaptor } from '@rmmjs/statistics';
import { thrown } from '@rmmjs/test-helpers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const counts = (
  currentBytes: number,
  currentCount: number,
  peakBytes: number,
  peakCount: number,
  totalBytes: number,
  totalCount: number,
) => new Statistics(currentBytes, currentCount, peakBytes, peakCount, totalBytes, totalCount);

let statsMr: StatisticsResourceAdaptor;
let previous: ReturnType<typeof getCurrentDeviceResource>;
beforeEach(() => {
  statsMr = new StatisticsResourceAdaptor(getCurrentDeviceResource());
  previous = setCurrentDeviceResource(statsMr);
});
afterEach(() => {
  setCurrentDeviceResource(previous);
});

const buffer = (size: number) => new DeviceBuffer({ size });

describe('StatisticsResourceAdaptor (RMM test_statistics.py)', () => {
  it('test_multiple_mr', () => {
    const buffers = Array.from({ length: 10 }, () => buffer(1000));
    for (let i = 9; i > 0; i -= 2) buffers.splice(i, 1)[0].free();
    expect(statsMr.allocationCounts).toEqual(counts(5000, 5, 10000, 10, 10000, 10));

    const mr2 = new StatisticsResourceAdaptor(statsMr);
    setCurrentDeviceResource(mr2);
    for (let i = 0; i < 2; i++) buffers.push(buffer(1000));
    expect(mr2.allocationCounts).toEqual(counts(2000, 2, 2000, 2, 2000, 2));
    expect(statsMr.allocationCounts).toEqual(counts(7000, 7, 10000, 10, 12000, 12));

    for (const b of buffers) b.free();
    expect(mr2.allocationCounts).toEqual(counts(0, 0, 2000, 2, 2000, 2));
    expect(statsMr.allocationCounts).toEqual(counts(0, 0, 10000, 10, 12000, 12));
  });

  it('test_counter_stack', () => {
    const buffers = Array.from({ length: 10 }, () => buffer(10));

    // push returns the counters on top before the push
    expect(statsMr.pushCounters()).toEqual(counts(100, 10, 100, 10, 100, 10)); // level 0
    let b1 = buffer(10);
    expect(statsMr.pushCounters()).toEqual(counts(10, 1, 10, 1, 10, 1)); // level 1
    b1.free();

    // pop returns the popped counters; they can be negative
    expect(statsMr.popCounters()).toEqual(counts(-10, -1, 0, 0, 0, 0)); // level 2
    b1 = buffer(10);
    expect(statsMr.pushCounters()).toEqual(counts(10, 1, 10, 1, 20, 2)); // level 1
    const b2 = buffer(10);
    expect(statsMr.popCounters()).toEqual(counts(10, 1, 10, 1, 10, 1)); // level 2
    expect(statsMr.popCounters()).toEqual(counts(20, 2, 20, 2, 30, 3)); // level 1
    b1.free();
    b2.free();
    expect(statsMr.allocationCounts).toEqual(counts(100, 10, 120, 12, 130, 13)); // level 0

    for (const b of buffers) b.free();
    const error = thrown(() => statsMr.popCounters());
    expect(error).toBeInstanceOf(RangeError);
    expect(error.code).toBe('ERR_OUT_OF_RANGE');
    expect(error.message).toBe('cannot pop the last counter pair');
    expect(statsMr.allocationCounts).toEqual(counts(0, 0, 120, 12, 130, 13));
  });
});

describe('StatisticsResourceAdaptor', () => {
  it('counts the bytes requested, not rounded, on any stream', () => {
    const stream = new Stream();
    const a = statsMr.allocate(1);
    const b = statsMr.allocate(1000, stream);
    expect(statsMr.allocationCounts).toEqual(counts(1001, 2, 1001, 2, 1001, 2));
    statsMr.deallocate(a, 1);
    statsMr.deallocate(b, 1000, stream);
    expect(statsMr.allocationCounts).toEqual(counts(0, 0, 1001, 2, 1001, 2));
    stream[Symbol.dispose]();
  });

  it('an allocation of 0 bytes counts one allocation of 0 bytes, and freeing it one free (as RMM)', () => {
    expect(statsMr.allocate(0)).toBe(0n);
    expect(statsMr.allocationCounts).toEqual(counts(0, 1, 0, 1, 0, 1));
    statsMr.deallocate(0n, 0);
    expect(statsMr.allocationCounts).toEqual(counts(0, 0, 0, 1, 0, 1));
    expect(thrown(() => statsMr.allocate(0, null as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => statsMr.deallocate(0n, -1)).code).toBe('ERR_OUT_OF_RANGE');
    expect(statsMr.allocationCounts).toEqual(counts(0, 0, 0, 1, 0, 1));
  });

  it('refuses a disposed stream for 0 bytes too, as for any other size, and counts nothing', () => {
    const stream = new Stream();
    stream[Symbol.dispose]();
    const expected = thrown(() => statsMr.allocate(8, stream));
    expect(expected.code).toBe('ERR_RMM_DISPOSED');
    for (const call of [() => statsMr.allocate(0, stream), () => statsMr.deallocate(0n, 0, stream)]) {
      const error = thrown(call);
      expect(error.constructor).toBe(expected.constructor);
      expect(error.code).toBe('ERR_RMM_DISPOSED');
    }
    expect(statsMr.allocationCounts).toEqual(counts(0, 0, 0, 0, 0, 0));
  });

  it('a failed allocation counts nothing and its error reaches the caller unchanged', () => {
    const limited = new LimitingResourceAdaptor(getCurrentDeviceResource(), 1024);
    const mr = new StatisticsResourceAdaptor(limited);
    const error = thrown(() => mr.allocate(2048));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.message).toBe('Exceeded memory limit (failed to allocate 2.000000 KiB)');
    expect(mr.allocationCounts).toEqual(counts(0, 0, 0, 0, 0, 0));

    const boom = new Error('boom');
    const throwing = new StatisticsResourceAdaptor(
      new CallbackMemoryResource(
        () => {
          throw boom;
        },
        () => {},
      ),
    );
    expect(thrown(() => throwing.allocate(10))).toBe(boom);
    expect(throwing.allocationCounts).toEqual(counts(0, 0, 0, 0, 0, 0));
  });

  it('a free is counted before the upstream frees', () => {
    const memory = getCurrentDeviceResource();
    const seen: Statistics[] = [];
    let mr: StatisticsResourceAdaptor | undefined;
    const upstream = new CallbackMemoryResource(
      (nbytes) => memory.allocate(nbytes),
      (ptr, nbytes) => {
        seen.push(mr!.allocationCounts);
        memory.deallocate(ptr, nbytes);
      },
    );
    mr = new StatisticsResourceAdaptor(upstream);
    mr.deallocate(mr.allocate(500), 500);
    expect(seen).toEqual([counts(0, 0, 500, 1, 500, 1)]);
  });

  // Found by the fuzzer (tooling/fuzz): a free the upstream refused (a double or foreign free, a
  // deallocate callback that threw) was counted all the same, leaving currentBytes negative.
  it('a free the upstream refuses is not counted', () => {
    const limited = new LimitingResourceAdaptor(getCurrentDeviceResource(), '1 MiB');
    const mr = new StatisticsResourceAdaptor(limited);
    const ptr = mr.allocate(500);
    mr.deallocate(ptr, 500);
    const refused = thrown(() => mr.deallocate(ptr, 500)); // freed twice
    expect(refused.code).toBe('ERR_RMM_LOGIC');
    expect(thrown(() => mr.deallocate(0x1000n, 256)).code).toBe('ERR_RMM_LOGIC'); // never allocated
    expect(mr.allocationCounts).toEqual(counts(0, 0, 500, 1, 500, 1));

    const memory = getCurrentDeviceResource();
    const boom = new Error('boom');
    let fail = true;
    const throwing = new StatisticsResourceAdaptor(
      new CallbackMemoryResource(
        (nbytes) => memory.allocate(nbytes),
        (p, nbytes) => {
          if (fail) throw boom;
          memory.deallocate(p, nbytes);
        },
      ),
    );
    const held = throwing.allocate(300);
    expect(thrown(() => throwing.deallocate(held, 300))).toBe(boom);
    expect(throwing.allocationCounts).toEqual(counts(300, 1, 300, 1, 300, 1));
    fail = false;
    throwing.deallocate(held, 300);
    expect(throwing.allocationCounts).toEqual(counts(0, 0, 300, 1, 300, 1));
  });

  it('push and pop merge as RMM: peak = max(parent.value + child.peak, parent.peak)', () => {
    const a = statsMr.allocate(100);
    statsMr.pushCounters();
    const b = statsMr.allocate(50);
    statsMr.deallocate(b, 50);
    const c = statsMr.allocate(30);
    expect(statsMr.popCounters()).toEqual(counts(30, 1, 50, 1, 80, 2));
    expect(statsMr.allocationCounts).toEqual(counts(130, 2, 150, 2, 180, 3));
    // a deep stack
    for (let i = 0; i < 100; i++) statsMr.pushCounters();
    const d = statsMr.allocate(7);
    for (let i = 0; i < 100; i++) statsMr.popCounters();
    expect(statsMr.allocationCounts).toEqual(counts(137, 3, 150, 3, 187, 4));
    for (const [ptr, size] of [
      [a, 100],
      [c, 30],
      [d, 7],
    ] as const)
      statsMr.deallocate(ptr, size);
  });

  it('exposes its upstream and is the class of the current resource', () => {
    expect(getCurrentDeviceResource()).toBe(statsMr);
    expect(statsMr.upstreamMr).toBe(previous);
    expect(statsMr.getUpstream()).toBe(previous);
  });

  it('bad arguments; a disposed adaptor', () => {
    expect(thrown(() => new StatisticsResourceAdaptor({} as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => new StatisticsResourceAdaptor(undefined as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    const mr = new StatisticsResourceAdaptor(getCurrentDeviceResource());
    mr[Symbol.dispose]();
    for (const use of [
      () => mr.allocationCounts,
      () => mr.pushCounters(),
      () => mr.popCounters(),
      () => mr.allocate(0),
      () => mr.allocate(8),
    ]) {
      expect(thrown(use).code).toBe('ERR_RMM_DISPOSED');
    }
  });
});

describe('Statistics', () => {
  it('takes the six counters positionally or by name', () => {
    const byName = new Statistics({
      currentBytes: 1,
      currentCount: 2,
      peakBytes: 3,
      peakCount: 4,
      totalBytes: 5,
      totalCount: 6,
    });
    expect(byName).toEqual(counts(1, 2, 3, 4, 5, 6));
    expect({ ...byName }).toEqual({
      currentBytes: 1,
      currentCount: 2,
      peakBytes: 3,
      peakCount: 4,
      totalBytes: 5,
      totalCount: 6,
    });
    expect(counts(-10, -1, 0, 0, 0, 0).currentBytes).toBe(-10);
  });

  it('refuses what is not an integer counter', () => {
    expect(thrown(() => counts('1' as never, 0, 0, 0, 0, 0)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => counts(0, 0.5, 0, 0, 0, 0)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => new Statistics({ currentBytes: 1 } as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => new Statistics({ currentBytes: 1 } as never)).message).toBe(
      'The "init.currentCount" property must be of type number. Received undefined',
    );
    expect(thrown(() => counts(0, 0.5, 0, 0, 0, 0)).message).toBe(
      'The value of "currentCount" is out of range. It must be an integer >= -9007199254740991 and <= 9007199254740991. Received 0.5',
    );
  });
});
