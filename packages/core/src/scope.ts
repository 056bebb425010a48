function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as PromiseLike<unknown>).then === 'function'
  );
}

/**
 * Runs `fn` inside a scope and leaves the scope when `fn` returns or throws, or when the promise
 * it returns settles: the callback form of a context manager (`statistics(fn)`,
 * `deferCleanup(fn)`). An error leaving the scope replaces `fn`'s own (as Python's `finally`).
 */
export function runInScope<T>(scope: Disposable, fn: () => T): T {
  let result: T;
  try {
    result = fn();
  } catch (error) {
    scope[Symbol.dispose]();
    throw error;
  }
  if (!isPromiseLike(result)) {
    scope[Symbol.dispose]();
    return result;
  }
  return result.then(
    (value) => {
      scope[Symbol.dispose]();
      return value;
    },
    (error: unknown) => {
      scope[Symbol.dispose]();
      throw error;
    },
  ) as T;
}
