/**
 * Memory of objects dropped without free(): DeviceBuffers, and what other packages track the same
 * way through core's C ABI (`track_owner`: a DLPack capsule). The collector finds such an object
 * unreachable early, but Node-API runs its finalizer (which frees the memory) only when the event
 * loop turns: a synchronous loop that drops buffers would run out of memory while holding garbage.
 * So before an allocation reports out of memory:
 * 1. the memory of the owners the collector has already found unreachable is given back (cheap: no
 *    collection) and the allocation is retried;
 * 2. when that did not do, and the memory held by owners whose objects may be garbage is at least
 *    what was asked, a full collection runs, their memory is given back, and the allocation is
 *    retried once more.
 *
 * "May be garbage": every owner of this thread, except those that a full collection found reachable
 * less than PROOF_MS ago. So a burst of failures (within PROOF_MS, while no new owners holding at
 * least the request were made) costs at most one collection, a loop that keeps failing costs at
 * most one every PROOF_MS, and a failure that no collection could help (a raw `allocate()` larger
 * than all the memory owners hold, raw pointers being the caller's) costs none. After PROOF_MS, an
 * owner found reachable then may have been dropped since: it counts again.
 *
 * Limits: only owners of this thread (each worker reclaims its own); memory held by objects the
 * collector has not proven unreachable stays held.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { OutOfMemoryError } from './errors.js';
import { native } from './native.js';

let fullCollection: (() => void) | undefined;

/**
 * V8's full garbage collection. Node-API gives addons no way to ask for one (no V8 API: the addons
 * build against Node-API's headers only), so: `gc` where the process runs with --expose-gc, else
 * the `gc` function of a context made while the flag was on, the first time a collection is needed
 * (the flag is put back at once, so no other context gets one; the function is kept). The flag is
 * the process's: another thread doing the same can put it back between our two steps, so this
 * tries a few times, and without a `gc` skips the collection (the allocation then reports its
 * error). Returns whether it collected.
 */
export function collectGarbage(): boolean {
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
  return fullCollection !== undefined;
}

// How long the owners a full collection left count as reachable (a collection takes milliseconds:
// one per PROOF_MS keeps a loop that keeps failing within a few percent of its time).
const PROOF_MS = 100;
let lastCollection = -Infinity;

/** Runs `allocate` (of `nbytes`); on OutOfMemoryError reclaims and tries again (see above). */
export function withReclaim<T>(allocate: () => T, nbytes: number): T {
  try {
    return allocate();
  } catch (error) {
    return retryAfterReclaim(error, allocate, nbytes);
  }
}

/** After `allocate` (of `nbytes`) threw `error`: rethrows it, or, for OutOfMemoryError, reclaims and retries. */
export function retryAfterReclaim<T>(error: unknown, allocate: () => T, nbytes: number): T {
  if (!(error instanceof OutOfMemoryError)) throw error;
  let failure: OutOfMemoryError = error;
  if (native.reclaimCollected() > 0) {
    try {
      return allocate();
    } catch (again) {
      if (!(again instanceof OutOfMemoryError)) throw again;
      failure = again;
    }
  }
  const proven = performance.now() - lastCollection < PROOF_MS;
  if (native.heldBytes(proven) < nbytes) throw failure;
  if (!collectGarbage()) throw failure;
  const reclaimed = native.reclaimCollected();
  native.markCollected();
  lastCollection = performance.now();
  if (reclaimed === 0) throw failure;
  return allocate();
}
