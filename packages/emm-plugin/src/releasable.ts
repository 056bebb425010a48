import { RMMError } from '@rmmjs/core';
import { constructedDirectly } from '@rmmjs/core/internal';

/** @internal Lets RMMExternalMemoryManager construct the memory classes (nothing else can). */
export const INTERNAL: unique symbol = Symbol('RMMExternalMemoryManager');

/** @internal How memory goes back: `release()` gives it back (or queues it), or throws and changes nothing. */
export interface Release {
  release(): void;
  /** Whether it has been given back: after a failed release, memory that is gone all the same. */
  released(): boolean;
}

/**
 * The base of the memory RMMExternalMemoryManager hands out: freed once, with `free()` or
 * `[Symbol.dispose]()`; the garbage collector frees what is dropped without either.
 */
export abstract class Releasable implements Disposable {
  #release: Release | null;
  #freed = false;

  /** A null `release` makes a view: it owns no memory. */
  constructor(internal: typeof INTERNAL, release: Release | null) {
    if (internal !== INTERNAL) throw constructedDirectly(new.target.name, 'RMMExternalMemoryManager makes them');
    this.#release = release;
  }

  /** True once the memory was freed. */
  get freed(): boolean {
    return this.#freed;
  }

  /**
   * Gives the memory back now (see RMMExternalMemoryManager.deferCleanup for what may wait). A
   * second `free()` is `ERR_RMM_DISPOSED`; a view's is `ERR_RMM_LOGIC`. When it fails, the
   * memory stays as it was and `free()` may be tried again.
   */
  free(): void {
    if (this.freed) throw this.disposed();
    const release = this.#release;
    if (release === null) {
      throw new RMMError(`${this.constructor.name} is a view and owns no memory: free the memory it views`);
    }
    try {
      release.release();
    } finally {
      if (release.released()) {
        this.#freed = true;
        this.#release = null;
      }
    }
  }

  /** Like `free()`, but does nothing once freed, or for a view. */
  [Symbol.dispose](): void {
    if (!this.freed && this.#release !== null) this.free();
  }

  /** Throws `ERR_RMM_DISPOSED` once freed (getters call it). */
  protected checkLive(): void {
    if (this.freed) throw this.disposed();
  }

  private disposed(): RMMError {
    return new RMMError(`${this.constructor.name} was freed and cannot be used`, { code: 'ERR_RMM_DISPOSED' });
  }
}
