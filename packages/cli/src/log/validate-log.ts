/**
 * The check of a log argument: an `AllocationLog` as `LogParser` makes it, whose rows agree with
 * each other and with its counts. The replay trusts what it checks (a free of what is not
 * allocated would free memory twice; a thread or stream index out of range would stall the
 * workers), so it runs before any function of the library reads a log it was given, and what it
 * checks is a copy: a log's columns are shared memory, which the caller, or another thread, can
 * write after the check or during it.
 */
import { types } from 'node:util';
import { invalidArgType, invalidArgValue } from '@rmmjs/core/internal';
import { Action, type AllocationLog, type LiveAllocation } from './allocation-log.js';
import {
  arrayOf,
  copyToShared,
  shape,
  typedArray,
  validateCount,
  validateString,
  validateStrings,
  type Check,
  type TypedArrayClass,
} from '../validate.js';

const streamHandle: Check<bigint> = (value, name) => {
  if (typeof value !== 'bigint') throw invalidArgType(name, 'of type bigint', value);
  if (value < 0n || value >= 2n ** 64n) throw invalidArgValue(name, `must be a stream handle (0 to 2^64 - 1)`);
  return value;
};

const counts = shape({
  source: validateString,
  events: validateCount,
  slots: validateCount,
  threads: validateStrings,
  streams: arrayOf(streamHandle),
  allocations: validateCount,
  frees: validateCount,
  failures: validateCount,
  peakBytes: validateCount,
  largestAllocation: validateCount,
  live: arrayOf(shape({ slot: validateCount, size: validateCount, stream: validateCount, line: validateCount })),
});

/**
 * `value` as a log: a copy of its fields and of its columns (in shared memory of its own, for the
 * replay's workers), checked once copied; or the error that says what is wrong.
 */
export function validateLog(value: unknown, name = 'log'): AllocationLog {
  const fields = counts(value, name);
  const object = value as Record<string, unknown>;
  const column = <T extends ArrayBufferView>(key: string, is: (v: unknown) => v is T, Class: TypedArrayClass<T>) =>
    copyToShared(Class, typedArray(is, Class.name, fields.events)(object[key], `${name}.${key}`), fields.events);
  const log: AllocationLog = {
    ...fields,
    action: column('action', types.isUint8Array, Uint8Array),
    size: column('size', types.isFloat64Array, Float64Array),
    time: column('time', types.isFloat64Array, Float64Array),
    thread: column('thread', types.isInt32Array, Int32Array),
    stream: column('stream', types.isInt32Array, Int32Array),
    slot: column('slot', types.isInt32Array, Int32Array),
    line: column('line', types.isInt32Array, Int32Array),
  };
  checkRows(log, name);
  return log;
}

function checkRows(log: AllocationLog, name: string): void {
  const row = (i: number, what: string) =>
    invalidArgValue(name, `is not a consistent allocation log: its row ${i} ${what}`);
  const count = (field: keyof AllocationLog, rows: number) =>
    invalidArgValue(`${name}.${field}`, `is ${log[field] as number}; the log's rows give ${rows}`);
  // The event that allocated each slot while it is live, else -1.
  const allocatedBy = new Float64Array(log.slots).fill(-1);
  let allocations = 0;
  let frees = 0;
  let failures = 0;
  let bytes = 0;
  let peak = 0;
  let largest = 0;
  for (let i = 0; i < log.events; i++) {
    const action = log.action[i];
    const size = log.size[i];
    const time = log.time[i];
    const slot = log.slot[i];
    if (action > Action.allocateFailure) throw row(i, `has action ${action}, not a value of Action`);
    if (!Number.isSafeInteger(size) || size < 0) throw row(i, `has size ${size}, not a byte count`);
    // Rows of different threads may be a little out of time order (a logger reads the clock before
    // it takes its lock, as RMM's does), so a time before the first row's is valid.
    if (!Number.isFinite(time)) throw row(i, `has time ${time}, not microseconds since the first row`);
    if (log.thread[i] < 0 || log.thread[i] >= log.threads.length) throw row(i, `has no thread ${log.thread[i]}`);
    if (log.stream[i] < 0 || log.stream[i] >= log.streams.length) throw row(i, `has no stream ${log.stream[i]}`);
    if (log.line[i] < 1) throw row(i, `has line ${log.line[i]}`);
    if (slot < -1 || slot >= log.slots) throw row(i, `has slot ${slot} of ${log.slots}`);
    if (action === Action.allocateFailure) {
      if (slot !== -1) throw row(i, 'is a failed allocation with a slot');
      failures++;
    } else if (slot === -1) {
      if (size !== 0) throw row(i, `has no slot for ${size} bytes (only a null pointer of 0 bytes has none)`);
    } else if (action === Action.allocate) {
      if (allocatedBy[slot] !== -1) throw row(i, `allocates slot ${slot}, live since row ${allocatedBy[slot]}`);
      allocatedBy[slot] = i;
      allocations++;
      bytes += size;
      peak = Math.max(peak, bytes);
      largest = Math.max(largest, size);
    } else {
      const by = allocatedBy[slot];
      if (by === -1) throw row(i, `frees slot ${slot}, which is not allocated`);
      if (log.size[by] !== size) throw row(i, `frees ${size} bytes of slot ${slot}, allocated with ${log.size[by]}`);
      allocatedBy[slot] = -1;
      frees++;
      bytes -= size;
    }
  }
  if (log.allocations !== allocations) throw count('allocations', allocations);
  if (log.frees !== frees) throw count('frees', frees);
  if (log.failures !== failures) throw count('failures', failures);
  if (log.peakBytes !== peak) throw count('peakBytes', peak);
  if (log.largestAllocation !== largest) throw count('largestAllocation', largest);
  checkLive(log.live, allocatedBy, log, name);
}

/** `live` lists each allocation the rows leave live once, as its row says. */
function checkLive(live: LiveAllocation[], allocatedBy: Float64Array, log: AllocationLog, name: string): void {
  const listed = new Uint8Array(log.slots);
  for (const [k, { slot, size, stream, line }] of live.entries()) {
    const by = slot < log.slots ? allocatedBy[slot] : -1;
    if (
      by === -1 ||
      listed[slot] !== 0 ||
      log.size[by] !== size ||
      log.stream[by] !== stream ||
      log.line[by] !== line
    ) {
      throw invalidArgValue(`${name}.live`, `[${k}] is not an allocation the log's rows leave live`);
    }
    listed[slot] = 1;
  }
  const remaining = allocatedBy.reduce((n, by) => (by === -1 ? n : n + 1), 0);
  if (remaining !== live.length) {
    throw invalidArgValue(`${name}.live`, `lists ${live.length} allocations; the log's rows leave ${remaining} live`);
  }
}
