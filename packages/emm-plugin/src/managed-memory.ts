import { MemoryPointer, type MemoryPointerInit } from './memory-pointer.js';
import type { INTERNAL, Release } from './releasable.js';

/** Managed (unified) memory from `memallocmanaged`, as Numba's `ManagedMemory`. */
export class ManagedMemory extends MemoryPointer {
  readonly #attachGlobal: boolean;

  /** @internal */
  constructor(internal: typeof INTERNAL, init: MemoryPointerInit, release: Release, attachGlobal: boolean) {
    super(internal, init, release);
    this.#attachGlobal = attachGlobal;
  }

  /** Attached to every stream (CU_MEM_ATTACH_GLOBAL), or to the host (CU_MEM_ATTACH_HOST). */
  get attachGlobal(): boolean {
    return this.#attachGlobal;
  }
}
