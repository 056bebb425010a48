// What streams.js exports.
import type { DeviceMemoryResource } from '@rmmjs/core';

/**
 * A stream-ordered resource and a stream of another device: refused at allocate and deallocate
 * (`TypeError` `ERR_INVALID_ARG_VALUE`, naming both devices) before anything changes; the same
 * stream works with a resource of its own device. Needs two devices (skipped, saying why, elsewhere).
 * `make(upstream)` builds the resource over a `CudaMemoryResource` of the current device, with room
 * for any one of `options.sizes` at a time.
 */
export function describeStreamOfAnotherDevice(
  name: string,
  make: (upstream: DeviceMemoryResource) => DeviceMemoryResource,
  options?: { sizes?: number[] },
): void;
/**
 * Driver calls (symbol -> count, only those made; fake driver) of a random workload through the C
 * ABI on the legacy default stream, run again after a first run warmed `mr` up. Needs
 * `@rmmjs/test-addon` in the package's devDependencies.
 */
export function steadyStateDriverCalls(
  mr: DeviceMemoryResource,
  options?: { operations?: number; maxSize?: number; maxLive?: number },
): Promise<Record<string, number>>;
