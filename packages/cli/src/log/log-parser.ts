/**
 * Reads a log line by line, by column name as RMM's replay benchmark reads it, checks each row
 * and matches each free with its allocation. Every problem is a `LogFormatError` naming the line.
 */
import { GrowableArray } from './growable-array.js';
import { Action, LOG_COLUMNS, type AllocationLog } from './allocation-log.js';
import { LogFormatError } from './log-format-error.js';
import { validateBoolean, validateString } from '../validate.js';

const ACTIONS: Record<string, number> = {
  allocate: Action.allocate,
  free: Action.free,
  'allocate failure': Action.allocateFailure,
};

const TIME = /^(\d{1,2}):(\d{2}):(\d{2})[.:](\d{1,9})$/;
const HEX = /^(?:0x)?([0-9a-f]+)$/i;
const DECIMAL = /^\d+$/;
const DAY_US = 24 * 3600 * 1e6;

interface LiveEntry {
  slot: number;
  size: number;
  stream: number;
  line: number;
}

const quoted = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);

/** Reads a log line by line; `finish()` returns the log. */
export class LogParser {
  /** The name errors give for the log: its file, or the name given to `parseLog`. */
  readonly source: string;
  #lineNumber = 0;
  #columns: number[] | undefined;
  #fieldCount = 0;
  #action = new GrowableArray(Uint8Array);
  #size = new GrowableArray(Float64Array);
  #time = new GrowableArray(Float64Array);
  #thread = new GrowableArray(Int32Array);
  #stream = new GrowableArray(Int32Array);
  #slot = new GrowableArray(Int32Array);
  #line = new GrowableArray(Int32Array);
  #threads = new Map<string, number>();
  #streams = new Map<string, number>();
  #streamHandles: bigint[] = [];
  #live = new Map<string, LiveEntry>();
  #freedAt = new Map<string, number>();
  #freeSlots: number[] = [];
  #slots = 0;
  #allocations = 0;
  #frees = 0;
  #failures = 0;
  #liveBytes = 0;
  #peakBytes = 0;
  #largest = 0;
  #firstTime: number | undefined;
  #dayOffset = 0;
  #lastTime = 0;

  constructor(source: string) {
    this.source = validateString(source, 'source');
  }

  #fail(reason: string): never {
    throw new LogFormatError(reason, this.source, this.#lineNumber);
  }

  /** The next line of the file (without its newline); `unterminated` for a last line with no newline. */
  line(text: string, unterminated = false): void {
    validateString(text, 'text');
    validateBoolean(unterminated, 'unterminated');
    this.#lineNumber++;
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.trim() === '') return;
    if (this.#columns === undefined) return this.#header(text);
    const fields = text.split(',');
    if (fields.length !== this.#fieldCount) {
      const found = `expected ${this.#fieldCount} fields (${LOG_COLUMNS.join(',')}), found ${fields.length}: ${quoted(text)}`;
      this.#fail(unterminated ? `truncated row (the file ends inside it): ${found}` : found);
    }
    const [thread, time, action, pointer, size, stream] = this.#columns.map((i) => fields[i].trim());
    this.#row(thread, time, action, pointer, size, stream);
  }

  #header(text: string): void {
    const names = text.split(',').map((name) => name.trim());
    const missing = LOG_COLUMNS.filter((column) => !names.includes(column));
    if (missing.length > 0) {
      this.#fail(
        `not an RMM allocation log: the header ${quoted(text)} lacks ${missing.join(', ')} (want ${LOG_COLUMNS.join(',')})`,
      );
    }
    this.#columns = LOG_COLUMNS.map((column) => names.indexOf(column));
    this.#fieldCount = names.length;
  }

  #parseTime(text: string): number {
    const match = TIME.exec(text);
    if (match === null) this.#fail(`Time ${quoted(text)} is not HH:MM:SS.ffffff`);
    const [, hours, minutes, seconds, fraction] = match;
    const micros = Number(fraction.padEnd(6, '0').slice(0, 6));
    const of = (Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds);
    if (Number(hours) > 23 || Number(minutes) > 59 || Number(seconds) > 60) {
      this.#fail(`Time ${quoted(text)} is not a time of day`);
    }
    let clock = of * 1e6 + micros + this.#dayOffset;
    // A log that runs past midnight: the clock jumps back by about a day.
    if (clock < this.#lastTime - DAY_US / 2) {
      this.#dayOffset += DAY_US;
      clock += DAY_US;
    }
    this.#lastTime = clock;
    this.#firstTime ??= clock;
    return clock - this.#firstTime;
  }

  /** The pointer as lower-case hex digits without leading zeros ('0' for null). */
  #parsePointer(text: string): string {
    if (text === '(nil)' || text === 'nil') return '0';
    const match = HEX.exec(text);
    if (match === null) this.#fail(`Pointer ${quoted(text)} is not a hex address (0x7f...)`);
    return match[1].toLowerCase().replace(/^0+(?=.)/, '');
  }

  #row(
    threadText: string,
    timeText: string,
    actionText: string,
    pointerText: string,
    sizeText: string,
    streamText: string,
  ) {
    if (!DECIMAL.test(threadText)) this.#fail(`Thread ${quoted(threadText)} is not a thread id`);
    const time = this.#parseTime(timeText);
    const action = ACTIONS[actionText];
    if (action === undefined) {
      this.#fail(`Action ${quoted(actionText)} is not allocate, free or allocate failure`);
    }
    const pointer = this.#parsePointer(pointerText);
    const size = Number(sizeText);
    if (!DECIMAL.test(sizeText) || !Number.isSafeInteger(size)) {
      this.#fail(`Size ${quoted(sizeText)} is not a byte count`);
    }
    const streamMatch = HEX.exec(streamText);
    if (streamMatch === null) this.#fail(`Stream ${quoted(streamText)} is not a stream handle in hex`);

    const slot = this.#match(action, pointer, size, pointerText);
    let thread = this.#threads.get(threadText);
    if (thread === undefined) this.#threads.set(threadText, (thread = this.#threads.size));
    const streamKey = streamMatch[1].toLowerCase().replace(/^0+(?=.)/, '');
    let stream = this.#streams.get(streamKey);
    if (stream === undefined) {
      this.#streams.set(streamKey, (stream = this.#streams.size));
      this.#streamHandles.push(BigInt(`0x${streamKey}`));
    }
    if (action === Action.allocate && slot >= 0) this.#live.get(pointer)!.stream = stream;
    this.#action.push(action);
    this.#size.push(size);
    this.#time.push(time);
    this.#thread.push(thread);
    this.#stream.push(stream);
    this.#slot.push(slot);
    this.#line.push(this.#lineNumber);
  }

  /** Pairs frees with allocations; returns the row's slot. */
  #match(action: number, pointer: string, size: number, pointerText: string): number {
    if (action === Action.allocateFailure) {
      this.#failures++;
      return -1;
    }
    const what = action === Action.allocate ? 'allocate' : 'free';
    if (pointer === '0') {
      if (size === 0) return -1; // RMM logs allocations of 0 bytes that got no memory, and their frees
      this.#fail(`${what} of ${size} bytes at a null pointer (a failed allocation is logged as 'allocate failure')`);
    }
    if (action === Action.allocate) {
      const earlier = this.#live.get(pointer);
      if (earlier !== undefined) {
        this.#fail(`${pointerText} is allocated again without a free (allocated at line ${earlier.line})`);
      }
      const slot = this.#freeSlots.pop() ?? this.#slots++;
      this.#live.set(pointer, { slot, size, stream: 0, line: this.#lineNumber });
      this.#freedAt.delete(pointer);
      this.#allocations++;
      this.#liveBytes += size;
      this.#peakBytes = Math.max(this.#peakBytes, this.#liveBytes);
      this.#largest = Math.max(this.#largest, size);
      return slot;
    }
    const allocation = this.#live.get(pointer);
    if (allocation === undefined) {
      const freed = this.#freedAt.get(pointer);
      this.#fail(
        freed === undefined
          ? `free of ${pointerText} (${size} bytes) that no earlier row allocates`
          : `free of ${pointerText} (${size} bytes) that line ${freed} freed already`,
      );
    }
    if (allocation.size !== size) {
      this.#fail(
        `free of ${pointerText} with ${size} bytes, allocated with ${allocation.size} at line ${allocation.line}`,
      );
    }
    this.#live.delete(pointer);
    this.#freedAt.set(pointer, this.#lineNumber);
    this.#freeSlots.push(allocation.slot);
    this.#frees++;
    this.#liveBytes -= size;
    return allocation.slot;
  }

  /** The log, once every line has been given; a log without a header is `LogFormatError`. */
  finish(): AllocationLog {
    if (this.#columns === undefined) {
      throw new LogFormatError(
        `empty: no header (want ${LOG_COLUMNS.join(',')})`,
        this.source,
        Math.max(this.#lineNumber, 1),
      );
    }
    return {
      source: this.source,
      events: this.#action.length,
      action: this.#action.shared(),
      size: this.#size.shared(),
      time: this.#time.shared(),
      thread: this.#thread.shared(),
      stream: this.#stream.shared(),
      slot: this.#slot.shared(),
      line: this.#line.shared(),
      slots: this.#slots,
      threads: [...this.#threads.keys()],
      streams: this.#streamHandles,
      allocations: this.#allocations,
      frees: this.#frees,
      failures: this.#failures,
      peakBytes: this.#peakBytes,
      largestAllocation: this.#largest,
      live: [...this.#live.values()].sort((a, b) => a.line - b.line),
    };
  }
}
