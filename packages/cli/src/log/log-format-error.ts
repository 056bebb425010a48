/** A log that cannot be read or replayed: the file and line say where (`TypeError`, `ERR_INVALID_ARG_VALUE`). */
export class LogFormatError extends TypeError {
  readonly code = 'ERR_INVALID_ARG_VALUE';
  constructor(
    readonly reason: string,
    readonly source: string,
    readonly line: number,
  ) {
    super(`${source}:${line}: ${reason}`);
    this.name = 'LogFormatError';
  }
}
