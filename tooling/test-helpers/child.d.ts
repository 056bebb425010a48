/**
 * `rounds` (default 5) full collections, each followed by a turn of the event loop in which the
 * finalizers of what it collected run (the child runs with node's --expose-gc).
 */
export function collect(rounds?: number): Promise<void>;
