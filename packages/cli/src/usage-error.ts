/** A wrong argument found by a command: usage on stderr, exit code 2. */
export class UsageError extends Error {
  /** `'UsageError'`. */
  override name = 'UsageError';
}
