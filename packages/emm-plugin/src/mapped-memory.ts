import { MemoryPointer, type MemoryPointerInit } from './memory-pointer.js';
import type { INTERNAL, Release } from './releasable.js';

/** @internal */
export interface HostInit {
  hostPtr: bigint;
  /** The page-locked bytes, for JavaScript to read and write. */
  bytes: Uint8Array;
  /** What `mempin` pinned (null for `memhostalloc`). */
  hostOwner: object | null;
}

/**
 * Page-locked host memory mapped into the device's address space, as Numba's `MappedMemory`:
 * `ptr` is the address kernels use, `hostPtr` and `bytes` the host's.
 */
export class MappedMemory extends MemoryPointer {
  readonly #host: HostInit;

  /** @internal */
  constructor(internal: typeof INTERNAL, init: MemoryPointerInit, release: Release, host: HostInit) {
    super(internal, init, release);
    this.#host = host;
  }

  /** The host address. */
  get hostPtr(): bigint {
    this.checkLive();
    return this.#host.hostPtr;
  }

  /** The memory's bytes (memhostalloc: over the page-locked memory itself; mempin: a view of the owner). */
  get bytes(): Uint8Array {
    this.checkLive();
    return this.#host.bytes;
  }

  /** The object `mempin` pinned (kept alive until freed), or null for `memhostalloc`. */
  get hostOwner(): object | null {
    return this.#host.hostOwner;
  }
}
