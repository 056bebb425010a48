/**
 * RMM's rmm.statistics functions: statistics of the current device's resource when it is a
 * StatisticsResourceAdaptor (`null` otherwise), and the `statistics()` scope.
 */
import { type DeviceMemoryResource, RMMError, getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { runInScope, validateFunction } from '@rmmjs/core/internal';
import { StatisticsResourceAdaptor } from './statistics-resource-adaptor.js';
import type { Statistics } from './statistics.js';

/** The current resource when it is a StatisticsResourceAdaptor. */
export function currentStatisticsAdaptor(): StatisticsResourceAdaptor | null {
  const mr = getCurrentDeviceResource();
  return mr instanceof StatisticsResourceAdaptor ? mr : null;
}

/**
 * Puts a StatisticsResourceAdaptor on top of the current device's resource, unless one is there
 * already. It must stay on top while statistics are gathered.
 */
export function enableStatistics(): void {
  const mr = getCurrentDeviceResource();
  if (!(mr instanceof StatisticsResourceAdaptor)) setCurrentDeviceResource(new StatisticsResourceAdaptor(mr));
}

/** The current counters, or `null` when statistics are not enabled. */
export function getStatistics(): Statistics | null {
  return currentStatisticsAdaptor()?.allocationCounts ?? null;
}

/** Returns the current counters and pushes a pair of zeros; `null` (and nothing pushed) when not enabled. */
export function pushStatistics(): Statistics | null {
  return currentStatisticsAdaptor()?.pushCounters() ?? null;
}

/** Pops the counters on top and returns them; `null` when statistics are not enabled. */
export function popStatistics(): Statistics | null {
  return currentStatisticsAdaptor()?.popCounters() ?? null;
}

/** The scope `statistics()` returns: leaving it restores what entering it changed. */
export class StatisticsScope implements Disposable {
  #restore: DeviceMemoryResource | null = null; // the resource to put back, when entering installed an adaptor
  #inside: DeviceMemoryResource;
  #closed = false;

  constructor() {
    if (pushStatistics() === null) {
      this.#restore = getCurrentDeviceResource();
      enableStatistics();
    }
    this.#inside = getCurrentDeviceResource();
  }

  /**
   * Pops the counters pushed on entry, or puts back the resource that was current before.
   * RMMError (ERR_RMM_LOGIC) when the current resource changed inside the scope.
   */
  [Symbol.dispose](): void {
    if (this.#closed) return;
    this.#closed = true;
    if (getCurrentDeviceResource() !== this.#inside) {
      throw new RMMError('RMM memory source stack was changed while in the statistics context');
    }
    if (this.#restore === null) popStatistics();
    else setCurrentDeviceResource(this.#restore);
  }
}

/**
 * Statistics for a block of code (RMM's `statistics()` context). When statistics are enabled,
 * new counters are pushed on entry and popped on exit; otherwise a StatisticsResourceAdaptor is
 * made the current resource on entry and removed on exit. Changing the current resource inside
 * is an RMMError (ERR_RMM_LOGIC) on exit.
 *
 *   using _ = statistics();           // a Disposable
 *   const stats = statistics(() => { ...; return getStatistics(); });
 *   await statistics(async () => { ... });   // left when the promise settles
 */
export function statistics(): StatisticsScope;
export function statistics<T>(fn: () => T): T;
export function statistics<T>(fn?: () => T): StatisticsScope | T {
  if (fn === undefined) return new StatisticsScope();
  validateFunction(fn, 'fn');
  return runInScope(new StatisticsScope(), fn);
}
