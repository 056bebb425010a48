/**
 * `rounds` (default 5) full collections, each followed by a turn of the event loop in which the
 * finalizers of what it collected run, or by `waitMs` ms (for what other threads hand back to this
 * one). The child runs with node's --expose-gc.
 */
export function collect(rounds?: number, waitMs?: number): Promise<void>;
