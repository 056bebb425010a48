// timing.mjs: how a figure is timed. The pair loop's calls, and which runs the medians and the
// least are taken over (a warm-up run first, the median the middle of the sorted runs).
import { describe, expect, it } from 'vitest';
import { alternatingMedians, leastAndMedian, median, middleOf, pairNs } from '../src/timing.mjs';

/** A function that returns the values given, one a call, and records that it was called. */
function sequence(values: number[], calls: string[] = [], name = '') {
  let next = 0;
  return () => {
    calls.push(name);
    return values[next++];
  };
}

describe('timing.mjs', () => {
  it('pairNs: allocates and frees nbytes, iterations times, each free the pointer just allocated', () => {
    const calls: string[] = [];
    let next = 0n;
    const mr = {
      allocate: (nbytes: number) => (calls.push(`allocate ${nbytes}`), ++next),
      deallocate: (ptr: bigint, nbytes: number) => void calls.push(`deallocate ${ptr} ${nbytes}`),
    };
    const ns = pairNs(mr, 256, 3);
    expect(calls).toEqual([
      'allocate 256',
      'deallocate 1 256',
      'allocate 256',
      'deallocate 2 256',
      'allocate 256',
      'deallocate 3 256',
    ]);
    expect(ns).toBeGreaterThan(0);
  });

  it('middleOf: the middle of the sorted values, the upper one of an even count, leaving them as they were', () => {
    const values = [5, 1, 4, 2, 3];
    expect(middleOf(values)).toBe(3);
    expect(values).toEqual([5, 1, 4, 2, 3]);
    expect(middleOf([4, 1, 3, 2])).toBe(3);
    expect(middleOf([7])).toBe(7);
  });

  it('median: the middle of `rounds` runs after a warm-up run that does not count', () => {
    const calls: string[] = [];
    expect(median(sequence([1000, 9, 1, 5, 3, 7], calls), 5)).toBe(5);
    expect(calls).toHaveLength(6);
    expect(median(sequence([1000, 2, 8, 4]), 3)).toBe(4);
  });

  it('leastAndMedian: the least and the middle of the runs after the warm-up', () => {
    expect(leastAndMedian(sequence([0, 9, 1, 5, 3, 7]))).toEqual({ least: 1, median: 5 });
    expect(leastAndMedian(sequence([0, 6, 2, 4]), 3)).toEqual({ least: 2, median: 4 });
  });

  it('alternatingMedians: one warm-up run of each, then the loops in turns; the median of each', () => {
    const calls: string[] = [];
    const medians = alternatingMedians([sequence([0, 30, 10, 20], calls, 'a'), sequence([0, 1, 3, 2], calls, 'b')], 3);
    expect(medians).toEqual([20, 2]);
    expect(calls.join('')).toBe('abababab');
  });
});
