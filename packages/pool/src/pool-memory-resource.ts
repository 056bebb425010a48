import { type DeviceMemoryResource, UpstreamResourceAdaptor } from '@rmmjs/core';
import { registerResourceClass, resourceHandle, validateOptions, validateSizeOption } from '@rmmjs/core/internal';
import { addon } from './addon.js';

/** Options of `PoolMemoryResource`; sizes are bytes or strings such as `'1 GiB'`. */
export interface PoolMemoryResourceOptions {
  /**
   * Bytes taken from `upstream` at construction, a multiple of 256. Default: half the device's
   * free memory (RMM's default), at most `maximumPoolSize`; 256 MiB (or half the host's memory,
   * if less) in host mode.
   */
  initialPoolSize?: number | string;
  /** The most bytes the pool may take from `upstream`, a multiple of 256. Default: no maximum. */
  maximumPoolSize?: number | string;
}

/**
 * RMM's coalescing best-fit suballocator: memory is taken from `upstream` in large blocks and
 * handed out in pieces (256-byte aligned). Stream-ordered: memory freed on one stream is reused
 * on it at once, and on another stream after that stream waits on an event. The pool grows when
 * nothing fits (by the larger of the request and the pool's size; with a maximum, by the larger
 * of the request and half the room left), and all its memory goes back upstream when the last
 * reference to it is released.
 */
export class PoolMemoryResource extends UpstreamResourceAdaptor {
  constructor(upstream: DeviceMemoryResource, options?: PoolMemoryResourceOptions) {
    const handle = resourceHandle(upstream, 'upstream');
    const { initialPoolSize, maximumPoolSize } = validateOptions<PoolMemoryResourceOptions>(options);
    super(
      addon.create(
        handle,
        initialPoolSize === undefined ? undefined : validateSizeOption(initialPoolSize, 'options.initialPoolSize'),
        maximumPoolSize === undefined ? undefined : validateSizeOption(maximumPoolSize, 'options.maximumPoolSize'),
      ),
    );
  }

  /** Bytes currently taken from the upstream resource (free and handed out). */
  poolSize(): number {
    return addon.poolSize(resourceHandle(this, 'this'));
  }
}

registerResourceClass('PoolMemoryResource', PoolMemoryResource);
