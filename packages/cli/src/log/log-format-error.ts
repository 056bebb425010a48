/** A log that cannot be read or replayed: the file and line say where (`TypeError`, `ERR_INVALID_ARG_VALUE`). */
export class LogFormatError extends TypeError {
  /** `'ERR_INVALID_ARG_VALUE'`. */
  readonly code = 'ERR_INVALID_ARG_VALUE';
  constructor(
    /** What is wrong, without the file and line. */
    readonly reason: string,
    /** The log's file, or the name given to `parseLog`. */
    readonly source: string,
    /** The line the problem is on, from 1. */
    readonly line: number,
  ) {
    super(`${source}:${line}: ${reason}`);
    this.name = 'LogFormatError';
  }
}
