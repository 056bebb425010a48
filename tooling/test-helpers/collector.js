// The garbage collector as the reclaim tests see it: loops that make owners of device memory and
// drop them without freeing them, and a count of the full collections something cost. Node
// built-ins only.
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { setImmediate as turn } from 'node:timers/promises';

/**
 * Runs `makeAndDrop(i)` `count` times in a synchronous loop, then `count` times more with the event
 * loop turning after each. Each call makes an object that owns device memory and drops it without
 * freeing it: over a resource too small for all of it, a loop that runs out throws the
 * OutOfMemoryError here.
 */
export async function dropOnlyLoops(makeAndDrop, count) {
  for (let i = 0; i < count; i++) makeAndDrop(i);
  for (let i = 0; i < count; i++) {
    makeAndDrop(count + i);
    await turn();
  }
}

/**
 * The full (mark-compact) collections of this thread while `fn` (maybe async) runs: perf_hooks'
 * `gc` entries of kind NODE_PERFORMANCE_GC_MAJOR. Resolves with `{ result, collections }`.
 */
export async function countFullCollections(fn) {
  const entries = [];
  const observer = new PerformanceObserver((list) => entries.push(...list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  await turn(); // entries of collections before fn ran arrive before this
  entries.length = 0;
  try {
    const result = await fn();
    // A collection's entry is made on a later turn of the event loop.
    for (let i = 0; i < 3; i++) await turn();
    entries.push(...observer.takeRecords());
    const collections = entries.filter((entry) => entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR).length;
    return { result, collections };
  } finally {
    observer.disconnect();
  }
}
