import { type DeviceMemoryResource, UpstreamResourceAdaptor } from '@rmmjs/core';
import { registerResourceClass, resourceHandle, validateBoolean, validateOptions } from '@rmmjs/core/internal';
import { addon } from './addon.js';

// Called by the addon, on this thread only, when an allocation with captureStacks is made here:
// the JavaScript stack of the allocating call (V8 formats it lazily, on `.stack`).
function captureStack(): string {
  const holder: { stack?: string } = {};
  Error.captureStackTrace(holder, captureStack);
  return holder.stack ?? '';
}
addon.setStackCapturer(captureStack);

/** Options of `TrackingResourceAdaptor`. */
export interface TrackingResourceAdaptorOptions {
  /** Record the call stack of every allocation (default `false`). */
  captureStacks?: boolean;
}

/**
 * Tracks every outstanding allocation (pointer, requested size and, with `captureStacks`, the
 * call stack) to find leaks: `getAllocatedBytes()`, `getOutstandingAllocationsStr()`,
 * `logOutstandingAllocations()`. Stacks are JavaScript stacks for allocations made on a
 * JavaScript thread that imported this package, native frames otherwise.
 */
export class TrackingResourceAdaptor extends UpstreamResourceAdaptor {
  constructor(upstream: DeviceMemoryResource, options?: TrackingResourceAdaptorOptions) {
    const handle = resourceHandle(upstream, 'upstream');
    const { captureStacks = false } = validateOptions<TrackingResourceAdaptorOptions>(options);
    super(addon.create(handle, validateBoolean(captureStacks, 'options.captureStacks')));
  }

  /** Bytes requested by the outstanding allocations (not rounded up). */
  getAllocatedBytes(): number {
    return addon.allocatedBytes(resourceHandle(this, 'this'));
  }

  /** The number of outstanding allocations (beyond RMM's Python API; its C++ map's size). */
  getOutstandingAllocationCount(): number {
    return addon.outstandingCount(resourceHandle(this, 'this'));
  }

  /**
   * One line `<ptr>: <nbytes> B` per outstanding allocation in address order, with
   * ` : callstack:` and one `#<i> in <frame>` line per frame when stacks are captured;
   * `''` when nothing is outstanding.
   */
  getOutstandingAllocationsStr(): string {
    return addon.outstandingAllocationsStr(resourceHandle(this, 'this'));
  }

  /** Writes `Outstanding Allocations: <getOutstandingAllocationsStr()>` to the debug log at debug level. */
  logOutstandingAllocations(): void {
    addon.logOutstandingAllocations(resourceHandle(this, 'this'));
  }
}

registerResourceClass('TrackingResourceAdaptor', TrackingResourceAdaptor);
