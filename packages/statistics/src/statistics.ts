import { validateInteger, validateOptions } from '@rmmjs/core/internal';

/** The six counters, as `new Statistics({ currentBytes, ... })`. */
export interface StatisticsInit {
  /** Bytes allocated and not yet freed, as requested (not rounded). */
  currentBytes: number;
  /** Allocations not yet freed. */
  currentCount: number;
  /** The most `currentBytes` has been. */
  peakBytes: number;
  /** The most `currentCount` has been. */
  peakCount: number;
  /** Bytes allocated in all, freed or not. */
  totalBytes: number;
  /** Allocations made in all, freed or not. */
  totalCount: number;
}

const FIELDS = ['currentBytes', 'currentCount', 'peakBytes', 'peakCount', 'totalBytes', 'totalCount'] as const;

/** A counter: an integer of at most 2^53 - 1 either way (a pushed pair's current values can be negative). @internal */
export function counterArg(value: unknown, name: string): number {
  return validateInteger(value, name, -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
}

/**
 * What `getStatistics()`, `pushStatistics()`, `popStatistics()` and a StatisticsResourceAdaptor's
 * counters return: bytes requested and allocations, now, at the peak and in total. A pair pushed
 * on the stack counts from zero, so its current values can be negative.
 */
export class Statistics implements StatisticsInit {
  /** Bytes allocated and not yet freed, as requested (not rounded). */
  currentBytes: number;
  /** Allocations not yet freed. */
  currentCount: number;
  /** The most `currentBytes` has been. */
  peakBytes: number;
  /** The most `currentCount` has been. */
  peakCount: number;
  /** Bytes allocated in all, freed or not. */
  totalBytes: number;
  /** Allocations made in all, freed or not. */
  totalCount: number;

  constructor(init: StatisticsInit);
  constructor(
    currentBytes: number,
    currentCount: number,
    peakBytes: number,
    peakCount: number,
    totalBytes: number,
    totalCount: number,
  );
  constructor(...args: [StatisticsInit] | [number, number, number, number, number, number]) {
    let values: unknown[] = args;
    let names: readonly string[] = FIELDS;
    if (typeof args[0] === 'object' && args[0] !== null) {
      const init = validateOptions<StatisticsInit>(args[0], 'init');
      values = FIELDS.map((field) => init[field]);
      names = FIELDS.map((field) => `init.${field}`);
    }
    this.currentBytes = counterArg(values[0], names[0]);
    this.currentCount = counterArg(values[1], names[1]);
    this.peakBytes = counterArg(values[2], names[2]);
    this.peakCount = counterArg(values[3], names[3]);
    this.totalBytes = counterArg(values[4], names[4]);
    this.totalCount = counterArg(values[5], names[5]);
  }
}
