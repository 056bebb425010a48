/**
 * `rmm.statistics.*`: allocation statistics and the memory profiler.
 *
 * @module
 */
export * from '@rmmjs/statistics';
