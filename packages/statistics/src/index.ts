/**
 * @rmmjs/statistics: RMM's allocation statistics. The StatisticsResourceAdaptor and its counter
 * stack, the functions of `rmm.statistics` over the current device's resource, and the memory
 * profiler.
 *
 * @packageDocumentation
 */
export { Statistics } from './statistics.js';
export type { StatisticsInit } from './statistics.js';
export { StatisticsResourceAdaptor } from './statistics-resource-adaptor.js';
export {
  enableStatistics,
  getStatistics,
  pushStatistics,
  popStatistics,
  statistics,
  StatisticsScope,
} from './statistics-stack.js';
export { MemoryRecord } from './memory-record.js';
export { ProfilerRecords, defaultProfilerRecords } from './profiler-records.js';
export type { ProfilerOrder } from './profiler-records.js';
export { profiler, profileScope, profile, ProfileScope } from './profiler.js';
export type { AnyFunction, Profiler, ProfilerOptions } from './profiler.js';
