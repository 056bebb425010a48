/**
 * The debug logger every rmmjs resource writes to (RMM's `rmm::default_logger()`): pool growth,
 * arena dumps, tracking reports. It lives in @rmmjs/core's native code, so every addon logs to
 * the same place: `$RMM_DEBUG_LOG_FILE` (truncated when the logger starts) or stderr, one line per
 * message in RMM's pattern `[thread][HH:MM:SS:micros][level ] message`. Process-wide and
 * thread-safe; worker threads share its level.
 */
import { invalidArgType, native } from '@rmmjs/core/internal';

/** RMM's `level_enum` (rapids-logger's levels): `trace` (0) to `off` (6); `n_levels` counts them. */
export enum LevelEnum {
  /** The most verbose level (rmmjs itself logs nothing at it). */
  trace = 0,
  /** Detail: the pool's growth, the arena's superblocks, the tracking adaptor's outstanding allocations. */
  debug = 1,
  /** The default logging and flush level; the arena's dump when an allocation fails (`dumpLogOnFailure`). */
  info = 2,
  /** Something rmmjs worked around, e.g. transferred buffers nobody claimed, freed at exit. */
  warn = 3,
  /** A failure that could not be thrown, e.g. a free the C allocator hooks refused. */
  error = 4,
  /** The most severe level (rmmjs itself logs nothing at it). */
  critical = 5,
  /** As the logging level: nothing is logged. */
  off = 6,
  /** The number of levels, not a level: the functions that take a level refuse it (`ERR_INVALID_ARG_TYPE`). */
  n_levels = 7,
}

/** The same enum under the name RMM's documentation uses (`rmm.logging_level`). */
export { LevelEnum as LoggingLevel };

/** A level: one of LevelEnum's values `trace` to `off` (the integers 0-6), else ERR_INVALID_ARG_TYPE. */
function levelArg(level: unknown): LevelEnum {
  if (typeof level !== 'number' || !Number.isInteger(level) || level < LevelEnum.trace || level > LevelEnum.off) {
    throw invalidArgType('level', 'a LevelEnum value (an integer from 0 to 6)', level);
  }
  return level;
}

/** Messages below `level` are not logged (default `LevelEnum.info`). */
export function setLoggingLevel(level: LevelEnum): void {
  native.setLogLevel(levelArg(level));
}

/** The logging level: messages below it are not logged. */
export function getLoggingLevel(): LevelEnum {
  return native.getLogLevel();
}

/** Messages at or above `level` are written to the file at once (default `LevelEnum.info`). */
export function setFlushLevel(level: LevelEnum): void {
  native.setFlushLevel(levelArg(level));
}

/** The flush level: messages at or above it are written to the file at once. */
export function getFlushLevel(): LevelEnum {
  return native.getFlushLevel();
}

/** Writes buffered messages to the log file. */
export function flushLogger(): void {
  native.flushLog();
}

/** True when a message at `level` would be logged (at or above the logging level, as in RMM). */
export function shouldLog(level: LevelEnum): boolean {
  return native.shouldLog(levelArg(level));
}
