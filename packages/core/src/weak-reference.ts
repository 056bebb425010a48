import { native, type WeakReferenceHandle } from './native.js';

/**
 * A weak reference, as WeakRef, but one that does not keep its target alive to the end of the
 * current job: a WeakRef made (or deref'd) in a synchronous loop keeps every target until the loop
 * ends, and with it the memory of the DeviceBuffers the target holds, which no reclaim before an
 * out-of-memory can then give back (reclaim.ts). For tables that must not hold what they list.
 */
export class WeakReference<T extends object> {
  readonly #handle: WeakReferenceHandle;

  constructor(target: T) {
    this.#handle = native.weakReference(target);
  }

  /** The target, or undefined once it was collected. */
  deref(): T | undefined {
    return native.weakTarget(this.#handle) as T | undefined;
  }
}
