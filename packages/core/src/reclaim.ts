/**
 * Memory of DeviceBuffers dropped without free(). The collector finds such a buffer unreachable
 * early, but Node-API runs its finalizer (which frees the memory) only when the event loop turns:
 * a synchronous loop that drops buffers would run out of memory while holding garbage. So before
 * an allocation reports out of memory, the memory of the buffers the collector has already found
 * is freed (cheap: no collection) and the allocation retried; when that freed nothing or was not
 * enough, a full collection runs first and the allocation is retried once more.
 *
 * Limits: only buffers of this thread (each worker reclaims its own); only DeviceBuffers (not raw
 * `allocate()` pointers, which are the caller's to free); memory held by objects the collector has
 * not proven unreachable stays held.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { OutOfMemoryError } from './errors.js';
import { native } from './native.js';

let fullCollection: (() => void) | undefined;

/**
 * V8's full garbage collection. Without --expose-gc, the `gc` function of a context made while
 * the flag was on (the flag is put back at once, so no other context gets one). The flag is the
 * process's: another thread doing the same can put it back between our two steps, so this tries
 * a few times, and without a `gc` skips the collection (the allocation then reports its error).
 */
export function collectGarbage(): void {
  if (fullCollection === undefined) {
    const exposed = (globalThis as { gc?: unknown }).gc;
    if (typeof exposed === 'function') fullCollection = exposed as () => void;
    for (let attempt = 0; fullCollection === undefined && attempt < 3; attempt++) {
      setFlagsFromString('--expose-gc');
      try {
        const gc: unknown = runInNewContext('typeof gc === "function" ? gc : undefined');
        if (typeof gc === 'function') fullCollection = gc as () => void;
      } finally {
        setFlagsFromString('--no-expose-gc');
      }
    }
  }
  fullCollection?.();
}

/** Runs `allocate`; on OutOfMemoryError frees dropped buffers and tries again (see above). */
export function withReclaim<T>(allocate: () => T): T {
  try {
    return allocate();
  } catch (error) {
    return retryAfterReclaim(error, allocate);
  }
}

/** After `allocate` threw `error`: rethrows it, or, for OutOfMemoryError, reclaims and retries. */
export function retryAfterReclaim<T>(error: unknown, allocate: () => T): T {
  if (!(error instanceof OutOfMemoryError)) throw error;
  if (native.bufferReclaim() > 0) {
    try {
      return allocate();
    } catch (again) {
      if (!(again instanceof OutOfMemoryError)) throw again;
    }
  }
  collectGarbage();
  if (native.bufferReclaim() === 0) throw error;
  return allocate();
}
