import { resolve } from 'node:path';
import { inspect } from 'node:util';
import { type DeviceMemoryResource, UpstreamResourceAdaptor } from '@rmmjs/core';
import {
  invalidArgType,
  invalidArgValue,
  registerResourceClass,
  resourceHandle,
  validateBoolean,
  validateOptions,
} from '@rmmjs/core/internal';
import { addon } from './addon.js';

/** Options of `LoggingResourceAdaptor`. */
export interface LoggingResourceAdaptorOptions {
  /**
   * The CSV file to write (truncated); default `$RMM_LOG_FILE`. Any path, as in RMM (a terminal and
   * `/dev/null` too), but a FIFO or a socket, whose reader could block the threads that log, is
   * refused (`RMMError` `ERR_RMM_LOGIC`), as is a name with a null byte (`ERR_INVALID_ARG_VALUE`).
   */
  logFileName?: string;
  /** Write every row to the file at once instead of buffering (default false). */
  autoFlush?: boolean;
}

/**
 * `logFileName`, else `$RMM_LOG_FILE`, made absolute; neither, or a name with a null byte (which
 * the file system would cut short), -> ERR_INVALID_ARG_VALUE.
 * @internal
 */
export function logFileNameArg(logFileName: unknown, name = 'logFileName'): string {
  if (logFileName === undefined) {
    const fromEnvironment = process.env.RMM_LOG_FILE;
    if (!fromEnvironment) {
      throw invalidArgValue(
        name,
        'must be given when RMM_LOG_FILE is not set (RMM log file must be specified either using logFileName or the RMM_LOG_FILE environment variable)',
      );
    }
    return resolve(fromEnvironment);
  }
  if (typeof logFileName !== 'string') throw invalidArgType(name, 'of type string', logFileName);
  if (logFileName === '') throw invalidArgValue(name, "must be a file name. Received ''");
  if (logFileName.includes('\0')) {
    throw invalidArgValue(name, `must be a file name without null bytes. Received ${inspect(logFileName)}`);
  }
  return resolve(logFileName);
}

/**
 * Writes every allocation and free of its upstream to a CSV file in RMM's format (the header
 * `Thread,Time,Action,Pointer,Size,Stream`, then rows `allocate`, `allocate failure` and `free`),
 * which RMM's replay tools read. Rows are buffered in native memory and written in order from
 * any thread; `flush()` writes them now, and the file is flushed and closed when the adaptor's
 * last user lets go (and at process exit).
 */
export class LoggingResourceAdaptor extends UpstreamResourceAdaptor {
  constructor(upstream: DeviceMemoryResource, options: LoggingResourceAdaptorOptions = {}) {
    const { logFileName, autoFlush = false } = validateOptions<LoggingResourceAdaptorOptions>(options);
    const handle = resourceHandle(upstream, 'upstream');
    super(
      addon.create(
        handle,
        logFileNameArg(logFileName, 'options.logFileName'),
        validateBoolean(autoFlush, 'options.autoFlush'),
      ),
    );
  }

  /** Writes the buffered rows to the file. */
  flush(): void {
    addon.flush(resourceHandle(this, 'this'));
  }

  /** The absolute path of the CSV file. */
  getFileName(): string {
    return addon.fileName(resourceHandle(this, 'this'));
  }
}

registerResourceClass('LoggingResourceAdaptor', LoggingResourceAdaptor);
