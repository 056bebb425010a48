// The side of a child script (runInProcess), as `@rmmjs/test-helpers/child`: plain JavaScript with
// Node built-ins only, since a child runs without vitest.

/**
 * `rounds` full collections, each followed by a turn of the event loop in which the finalizers of
 * what it collected run, or by `waitMs` ms (for what other threads hand back to this one). The
 * child runs with node's --expose-gc.
 * @param {number} [rounds]
 * @param {number} [waitMs]
 */
export async function collect(rounds = 5, waitMs) {
  const { gc } = globalThis;
  if (gc === undefined) throw new Error('collect() needs node --expose-gc');
  for (let i = 0; i < rounds; i++) {
    gc();
    await new Promise((resolve) => (waitMs === undefined ? setImmediate(resolve) : setTimeout(resolve, waitMs)));
  }
}
