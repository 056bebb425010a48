/** A wrong argument found by a command: usage on stderr, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
