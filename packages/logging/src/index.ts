/**
 * @rmmjs/logging: RMM's logging. The debug logger's controls (levels, flushing), the
 * LoggingResourceAdaptor that writes RMM's CSV allocation log, and enableLogging() for every device.
 *
 * @packageDocumentation
 */
export {
  LevelEnum,
  LoggingLevel,
  setLoggingLevel,
  getLoggingLevel,
  setFlushLevel,
  getFlushLevel,
  flushLogger,
  shouldLog,
} from './logger.js';
export { LoggingResourceAdaptor } from './logging-resource-adaptor.js';
export type { LoggingResourceAdaptorOptions } from './logging-resource-adaptor.js';
export { enableLogging, disableLogging, getLogFilenames, logFileNameForDevice } from './enable-logging.js';
