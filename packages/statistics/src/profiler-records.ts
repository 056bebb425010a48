import { invalidArgType, invalidArgValue, validateOptions } from '@rmmjs/core/internal';
import { MemoryRecord } from './memory-record.js';
import { counterArg, type Statistics } from './statistics.js';

/** What `report()` can sort by (RMM's Python names are accepted too). */
export type ProfilerOrder = 'numCalls' | 'memoryPeak' | 'memoryTotal' | 'num_calls' | 'memory_peak' | 'memory_total';

const ORDERS: Record<ProfilerOrder, 'numCalls' | 'memoryPeak' | 'memoryTotal'> = {
  numCalls: 'numCalls',
  memoryPeak: 'memoryPeak',
  memoryTotal: 'memoryTotal',
  num_calls: 'numCalls',
  memory_peak: 'memoryPeak',
  memory_total: 'memoryTotal',
};

/** Python's `f"{n:{width},d}"`: thousands separated by commas, right-aligned. */
function formatCount(value: number, width: number): string {
  const digits = Math.abs(value)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${value < 0 ? '-' : ''}${digits}`.padStart(width);
}

/** The records profilers write to: one MemoryRecord per name (RMM's ProfilerRecords). */
export class ProfilerRecords {
  /** The record class, also at `ProfilerRecords.MemoryRecord` as in RMM. */
  static readonly MemoryRecord = MemoryRecord;

  #records = new Map<string, MemoryRecord>();

  /** Adds one call of `name` that allocated `stats.totalBytes` with a peak of `stats.peakBytes`. */
  add(name: string, stats: Pick<Statistics, 'totalBytes' | 'peakBytes'>): void {
    if (typeof name !== 'string') throw invalidArgType('name', 'of type string', name);
    if (typeof stats !== 'object' || stats === null) throw invalidArgType('stats', 'a Statistics object', stats);
    const totalBytes = counterArg(stats.totalBytes, 'stats.totalBytes');
    const peakBytes = counterArg(stats.peakBytes, 'stats.peakBytes');
    const record = this.#records.get(name) ?? new MemoryRecord();
    record.add(totalBytes, peakBytes); // a refused call adds no record
    this.#records.set(name, record);
  }

  /** A copy of the records, by name, in the order they were first added. */
  get records(): Map<string, MemoryRecord> {
    return new Map(
      [...this.#records].map(([name, r]) => [name, new MemoryRecord(r.numCalls, r.memoryTotal, r.memoryPeak)]),
    );
  }

  /**
   * RMM's report: a table of the records, largest first by `orderedBy` (default `memoryPeak`;
   * equal records keep the order they were added in).
   */
  report(options: { orderedBy?: ProfilerOrder } = {}): string {
    const { orderedBy = 'memoryPeak' } = validateOptions<{ orderedBy: ProfilerOrder }>(options);
    if (typeof orderedBy !== 'string') throw invalidArgType('options.orderedBy', 'of type string', orderedBy);
    const field = Object.hasOwn(ORDERS, orderedBy) ? ORDERS[orderedBy as ProfilerOrder] : undefined;
    if (field === undefined) {
      throw invalidArgValue(
        'options.orderedBy',
        `must be 'numCalls', 'memoryPeak' or 'memoryTotal'. Received '${orderedBy}'`,
      );
    }
    const records = [...this.#records].sort(([, a], [, b]) => b[field] - a[field]);
    let text = 'Memory Profiling\n================\n\n';
    if (records.length === 0) return `${text}No data, maybe profiling wasn't enabled?`;
    text +=
      'Legends:\n' +
      '  ncalls       - number of times the function or code block was called\n' +
      '  memory_peak  - peak memory allocated in function or code block (in bytes)\n' +
      '  memory_total - total memory allocated in function or code block (in bytes)\n';
    text += `\nOrdered by: ${orderedBy}\n`;
    text += '\nncalls     memory_peak    memory_total  filename:lineno(function)\n';
    for (const [name, record] of records) {
      text += `${formatCount(record.numCalls, 6)} ${formatCount(record.memoryPeak, 15)} `;
      text += `${formatCount(record.memoryTotal, 15)}  ${name}\n`;
    }
    return text.slice(0, -1);
  }

  /** The records as a plain object, `{ name: { numCalls, memoryTotal, memoryPeak } }`, for tooling. */
  toJSON(): Record<
    string,
    {
      /** How many times it ran. */
      numCalls: number;
      /** Bytes allocated over all calls. */
      memoryTotal: number;
      /** The most bytes live at once during any one call. */
      memoryPeak: number;
    }
  > {
    const json: Record<string, { numCalls: number; memoryTotal: number; memoryPeak: number }> = {};
    for (const [name, { numCalls, memoryTotal, memoryPeak }] of this.#records) {
      json[name] = { numCalls, memoryTotal, memoryPeak };
    }
    return json;
  }

  /** The report, as `report()` with its default order. */
  toString(): string {
    return this.report();
  }
}

/** The records `profiler()`, `profileScope()` and `profile()` write to by default. */
export const defaultProfilerRecords = new ProfilerRecords();
