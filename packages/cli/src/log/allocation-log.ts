/**
 * RMM's CSV allocation log (`Thread,Time,Action,Pointer,Size,Stream`), as written by RMM's
 * logging_resource_adaptor (C++, and Python's `rmm.enable_logging`) and by @rmmjs/logging, and the
 * form it takes here once read: a column per field, in memory that worker threads share.
 */
export const LOG_COLUMNS = ['Thread', 'Time', 'Action', 'Pointer', 'Size', 'Stream'] as const;

/** The actions of a log row, as stored in `AllocationLog.action`. */
export const Action = { allocate: 0, free: 1, allocateFailure: 2 } as const;

/** An allocation the log never frees. */
export interface LiveAllocation {
  slot: number;
  size: number;
  stream: number;
  line: number;
}

/** A parsed log: one entry per row in each column (typed arrays in shared memory, for worker threads). */
export interface AllocationLog {
  source: string;
  events: number;
  action: Uint8Array;
  size: Float64Array;
  /** Microseconds since the first row (a log that runs past midnight keeps counting). */
  time: Float64Array;
  /** Index into `threads`. */
  thread: Int32Array;
  /** Index into `streams`. */
  stream: Int32Array;
  /**
   * The allocation an allocate or free is about (-1 for failures and null pointers): the index of
   * its replayed pointer in a table of `slots` entries (a slot is reused once its free is done).
   */
  slot: Int32Array;
  /** The row's line in the file. */
  line: Int32Array;
  slots: number;
  /** The logged thread ids, in the order they first appear. */
  threads: string[];
  /** The logged stream handles, in the order they first appear. */
  streams: bigint[];
  allocations: number;
  frees: number;
  /** Rows `allocate failure`. */
  failures: number;
  /** The most bytes the log has allocated and not freed at once. */
  peakBytes: number;
  /** The largest allocation. */
  largestAllocation: number;
  /** Allocations still live at the end of the log. */
  live: LiveAllocation[];
}
