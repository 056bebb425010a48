// rmm.statistics over the current device resource: enable/get/push/pop and statistics().
import { DeviceBuffer, RMMError, getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import {
  Statistics,
  StatisticsResourceAdaptor,
  enableStatistics,
  getStatistics,
  popStatistics,
  pushStatistics,
  statistics,
} from '@rmmjs/statistics';
import { thrown } from '@rmmjs/test-helpers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const counts = (...values: [number, number, number, number, number, number]) => new Statistics(...values);
const all = (bytes: number, count: number) => counts(bytes, count, bytes, count, bytes, count);
const buffer = (size: number) => new DeviceBuffer({ size });

let base: ReturnType<typeof getCurrentDeviceResource>;
beforeEach(() => {
  base = getCurrentDeviceResource();
});
afterEach(() => {
  setCurrentDeviceResource(base);
});

describe('with statistics disabled', () => {
  it('get, push and pop are null and change nothing (test_statistics_disabled)', () => {
    expect(getStatistics()).toBeNull();
    expect(pushStatistics()).toBeNull();
    expect(popStatistics()).toBeNull();
    expect(getStatistics()).toBeNull();
    expect(getCurrentDeviceResource()).toBe(base);
  });
});

describe('enableStatistics', () => {
  it('puts a StatisticsResourceAdaptor on top once (idempotent)', () => {
    enableStatistics();
    const mr = getCurrentDeviceResource();
    expect(mr).toBeInstanceOf(StatisticsResourceAdaptor);
    expect((mr as StatisticsResourceAdaptor).upstreamMr).toBe(base);
    enableStatistics();
    expect(getCurrentDeviceResource()).toBe(mr);
  });

  it('test_current_statistics', () => {
    enableStatistics();
    const b1 = buffer(10);
    expect(getStatistics()).toEqual(all(10, 1));
    const b2 = buffer(20);
    expect(pushStatistics()).toEqual(all(30, 2));
    b1.free();
    expect(popStatistics()).toEqual(counts(-10, -1, 0, 0, 0, 0));
    b2.free();
    expect(getStatistics()).toEqual(counts(0, 0, 30, 2, 30, 2));
    expect(thrown(() => popStatistics()).code).toBe('ERR_OUT_OF_RANGE');
  });
});

describe('statistics()', () => {
  it('test_context: installs an adaptor, nests by pushing, restores the resource', () => {
    expect(getStatistics()).toBeNull();
    {
      using _outer = statistics();
      const mr1 = getCurrentDeviceResource();
      expect(mr1).toBeInstanceOf(StatisticsResourceAdaptor);
      const b1 = buffer(20);
      expect(getStatistics()).toEqual(all(20, 1));
      let b2: DeviceBuffer;
      {
        using _inner = statistics();
        expect(getCurrentDeviceResource()).toBe(mr1);
        b2 = buffer(10);
        expect(getStatistics()).toEqual(all(10, 1));
      }
      expect(getStatistics()).toEqual(all(30, 2));
      b1.free();
      b2.free();
    }
    expect(getCurrentDeviceResource()).toBe(base);
  });

  it('the callback form returns what the callback returns, and restores on a throw', () => {
    const inner = statistics(() => {
      buffer(20).free();
      return statistics(() => {
        const b = buffer(10);
        const stats = getStatistics();
        b.free();
        return stats;
      });
    });
    expect(inner).toEqual(all(10, 1));
    expect(getCurrentDeviceResource()).toBe(base);

    const boom = new Error('boom');
    expect(
      thrown(() =>
        statistics(() => {
          throw boom;
        }),
      ),
    ).toBe(boom);
    expect(getCurrentDeviceResource()).toBe(base);
  });

  it('an async callback is inside until its promise settles', async () => {
    let during: Statistics | null = null;
    const result = statistics(async () => {
      const b = buffer(100);
      await new Promise((resolve) => setTimeout(resolve, 1));
      const c = buffer(50);
      during = getStatistics();
      b.free();
      c.free();
      return 'done';
    });
    expect(getCurrentDeviceResource()).toBeInstanceOf(StatisticsResourceAdaptor);
    await expect(result).resolves.toBe('done');
    expect(during).toEqual(all(150, 2));
    expect(getCurrentDeviceResource()).toBe(base);

    const boom = new Error('async boom');
    await expect(statistics(async () => Promise.reject(boom))).rejects.toBe(boom);
    expect(getCurrentDeviceResource()).toBe(base);
  });

  it('inside enabled statistics it pushes and pops, leaving the adaptor', () => {
    enableStatistics();
    const mr = getCurrentDeviceResource();
    const kept = buffer(7);
    statistics(() => {
      buffer(3).free();
      expect(getStatistics()).toEqual(counts(0, 0, 3, 1, 3, 1));
    });
    expect(getCurrentDeviceResource()).toBe(mr);
    expect(getStatistics()).toEqual(counts(7, 1, 10, 2, 10, 2));
    kept.free();
  });

  it("changing the current resource inside -> RMMError ERR_RMM_LOGIC, RMM's sentence", () => {
    const other = new LimitingResourceAdaptor(base, '1 MiB');
    const error = thrown(() =>
      statistics(() => {
        setCurrentDeviceResource(other);
      }),
    );
    expect(error).toBeInstanceOf(RMMError);
    expect(error.code).toBe('ERR_RMM_LOGIC');
    expect(error.message).toBe('RMM memory source stack was changed while in the statistics context');
    expect(getCurrentDeviceResource()).toBe(other); // left as it was found

    setCurrentDeviceResource(base);
    const scope = statistics();
    setCurrentDeviceResource(other);
    expect(thrown(() => scope[Symbol.dispose]()).code).toBe('ERR_RMM_LOGIC');
    scope[Symbol.dispose](); // once only
  });

  it('a callback that is not a function -> ERR_INVALID_ARG_TYPE, nothing installed', () => {
    expect(thrown(() => statistics(42 as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => statistics(null as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(getCurrentDeviceResource()).toBe(base);
  });
});
