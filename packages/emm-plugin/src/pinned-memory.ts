import type { HostInit } from './mapped-memory.js';
import { Releasable, type INTERNAL, type Release } from './releasable.js';

/** Page-locked host memory that is not mapped for the device, as Numba's `PinnedMemory`. */
export class PinnedMemory extends Releasable {
  readonly #host: HostInit;
  readonly #size: number;
  readonly #device: number;

  /** @internal */
  constructor(internal: typeof INTERNAL, size: number, device: number, release: Release, host: HostInit) {
    super(internal, release);
    this.#host = host;
    this.#size = size;
    this.#device = device;
  }

  /** The host address (`0n` for 0 bytes). */
  get hostPtr(): bigint {
    this.checkLive();
    return this.#host.hostPtr;
  }

  /** The size in bytes. */
  get size(): number {
    this.checkLive();
    return this.#size;
  }

  /** The device whose context it was page-locked in. */
  get device(): number {
    return this.#device;
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
