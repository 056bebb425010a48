/** `rmm.statistics.*`: allocation statistics and the memory profiler. */
export * from '@rmmjs/statistics';
