/**
 * RMM's CSV allocation log (`Thread,Time,Action,Pointer,Size,Stream`), as written by RMM's
 * logging_resource_adaptor (C++, and Python's `rmm.enable_logging`) and by @rmmjs/logging, and the
 * form it takes here once read: a column per field, in memory that worker threads share.
 */
/** The columns a log's header must name (in any order; other columns are ignored). */
export const LOG_COLUMNS = ['Thread', 'Time', 'Action', 'Pointer', 'Size', 'Stream'] as const;

/** The actions of a log row, as stored in `AllocationLog.action`. */
export const Action = {
  /** A row `allocate`. */
  allocate: 0,
  /** A row `free`. */
  free: 1,
  /** A row `allocate failure`: an allocation that failed (never replayed). */
  allocateFailure: 2,
} as const;

/** An allocation the log never frees. */
export interface LiveAllocation {
  /** Its index in the replay's table of pointers (see `AllocationLog.slot`). */
  slot: number;
  /** Its size in bytes. */
  size: number;
  /** Its stream: an index into `AllocationLog.streams`. */
  stream: number;
  /** The line of the row that allocates it. */
  line: number;
}

/** A parsed log: one entry per row in each column (typed arrays in shared memory, for worker threads). */
export interface AllocationLog {
  /** The file the log was read from, or the name given to `parseLog` (default `<log>`); errors name it. */
  source: string;
  /** The number of rows (the header and blank lines not counted). */
  events: number;
  /** Each row's action, a value of `Action`. */
  action: Uint8Array;
  /** Each row's size in bytes. */
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
  /** The size of the table `slot` indexes: the most allocations live at once. */
  slots: number;
  /** The logged thread ids, in the order they first appear. */
  threads: string[];
  /** The logged stream handles, in the order they first appear. */
  streams: bigint[];
  /** Rows `allocate` (those of 0 bytes at a null pointer not counted). */
  allocations: number;
  /** Rows `free` (those of 0 bytes at a null pointer not counted). */
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
