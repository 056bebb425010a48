/**
 * rmmjs: every rmmjs package in one import, laid out as RMM's Python API.
 *
 *   import * as rmm from 'rmmjs';
 *   rmm.reinitialize({ poolAllocator: true, initialPoolSize: '1 GiB' });
 *   const buffer = new rmm.DeviceBuffer({ size: 1024 });
 *   const pool = new rmm.mr.PoolMemoryResource(rmm.mr.getCurrentDeviceResource());
 *
 * `rmm.*` has everything of `@rmmjs/core` and the debug logger; `rmm.mr.*` the resources, the
 * adaptors and the per-device registry; `rmm.statistics.*` the statistics and the profiler;
 * `rmm.allocators.*` memory for array libraries; `rmm.interop.*` DLPack and CUDA IPC.
 *
 * @packageDocumentation
 */
export * from '@rmmjs/core';
export {
  LevelEnum,
  LoggingLevel,
  setLoggingLevel,
  getLoggingLevel,
  setFlushLevel,
  getFlushLevel,
  flushLogger,
  shouldLog,
  enableLogging,
  disableLogging,
  getLogFilenames,
} from '@rmmjs/logging';
export * as mr from './mr.js';
export * as statistics from './statistics.js';
export * as allocators from './allocators.js';
export * as interop from './interop.js';
export { reinitialize } from './reinitialize.js';
export type { ReinitializeOptions } from './reinitialize.js';
