import { type DeviceMemoryResource, type Stream, UpstreamResourceAdaptor } from '@rmmjs/core';
import { registerResourceClass, resourceHandle, streamArg, validateSize } from '@rmmjs/core/internal';
import { Statistics } from './statistics.js';
import { addon, type Counters } from './addon.js';

const statisticsOf = (counters: Counters) => new Statistics(...counters);

/**
 * Counts the bytes (as requested, not rounded) and the allocations its upstream hands out, on a
 * stack of counter pairs (RMM's statistics_resource_adaptor): allocations add to the pair on
 * top, frees subtract from it before the upstream frees; `pushCounters()` starts a new pair and
 * `popCounters()` merges it back. Native and thread-safe: allocations from any thread count.
 */
export class StatisticsResourceAdaptor extends UpstreamResourceAdaptor {
  constructor(upstream: DeviceMemoryResource) {
    super(addon.create(resourceHandle(upstream, 'upstream')));
  }

  /** The counters on top of the stack. */
  get allocationCounts(): Statistics {
    return statisticsOf(addon.counters(resourceHandle(this, 'this')));
  }

  /** Returns the counters on top, then pushes a pair of zeros. */
  pushCounters(): Statistics {
    return statisticsOf(addon.push(resourceHandle(this, 'this')));
  }

  /**
   * Pops the counters on top and returns them; they are added to the pair below (its peak
   * becomes the larger of its own and its current value plus the popped peak). Popping the last
   * pair is a RangeError (ERR_OUT_OF_RANGE).
   */
  popCounters(): Statistics {
    return statisticsOf(addon.pop(resourceHandle(this, 'this')));
  }

  /** As for every resource; an allocation of 0 bytes counts one allocation of 0 bytes, as in RMM. */
  override allocate(nbytes: number, stream?: Stream): bigint {
    if (nbytes !== 0) return super.allocate(nbytes, stream);
    checkStream(stream);
    addon.countAllocation(resourceHandle(this, 'this'), 0);
    return 0n;
  }

  /** As for every resource; freeing `0n` (what a 0-byte allocation gave) counts a free, as in RMM. */
  override deallocate(ptr: bigint, nbytes: number, stream?: Stream): void {
    if (ptr !== 0n) return super.deallocate(ptr, nbytes, stream);
    validateSize(nbytes, 'nbytes');
    checkStream(stream);
    addon.countFree(resourceHandle(this, 'this'), nbytes);
  }
}

// What the native side checks of a stream for any other size: a Stream, not disposed (reading its
// handle throws ERR_RMM_DISPOSED then).
function checkStream(stream: Stream | undefined): void {
  if (streamArg(stream) !== undefined) void stream!.handle;
}

registerResourceClass('StatisticsResourceAdaptor', StatisticsResourceAdaptor);
