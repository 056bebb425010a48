import { validateInteger, validateOptions } from '@rmmjs/core/internal';

/** The six counters, as `new Statistics({ currentBytes, ... })`. */
export interface StatisticsInit {
  currentBytes: number;
  currentCount: number;
  peakBytes: number;
  peakCount: number;
  totalBytes: number;
  totalCount: number;
}

const FIELDS = ['currentBytes', 'currentCount', 'peakBytes', 'peakCount', 'totalBytes', 'totalCount'] as const;

function counter(value: unknown, name: string): number {
  return validateInteger(value, name, -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
}

/**
 * What `getStatistics()`, `pushStatistics()`, `popStatistics()` and a StatisticsResourceAdaptor's
 * counters return: bytes requested and allocations, now, at the peak and in total. A pair pushed
 * on the stack counts from zero, so its current values can be negative.
 */
export class Statistics implements StatisticsInit {
  currentBytes: number;
  currentCount: number;
  peakBytes: number;
  peakCount: number;
  totalBytes: number;
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
    if (typeof args[0] === 'object' && args[0] !== null) {
      const init = validateOptions<StatisticsInit>(args[0], 'init');
      values = FIELDS.map((field) => init[field]);
    }
    this.currentBytes = counter(values[0], 'currentBytes');
    this.currentCount = counter(values[1], 'currentCount');
    this.peakBytes = counter(values[2], 'peakBytes');
    this.peakCount = counter(values[3], 'peakCount');
    this.totalBytes = counter(values[4], 'totalBytes');
    this.totalCount = counter(values[5], 'totalCount');
  }
}
