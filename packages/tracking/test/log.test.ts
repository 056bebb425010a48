// logOutstandingAllocations() and the errors RMM logs, read back from $RMM_DEBUG_LOG_FILE in a
// child process (the debug logger opens its file once per process).
import { runInProcess } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

/** Runs the child script test/children/<name>.js with a debug log; returns its stdout and log lines. */
function logOf(name: string): { stdout: string; lines: string[] } {
  const run = runInProcess(new URL(`./children/${name}.js`, import.meta.url), { debugLog: true });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  // "[thread][time][level ] message": keep "level message"
  const lines = run.log!.split('\n').map((line) => line.replace(/^\[ *\d+\]\[[\d:]+\]\[(\w+) *\] /, '$1 '));
  return { stdout: run.stdout, lines };
}

describe('TrackingResourceAdaptor debug log', () => {
  it('logOutstandingAllocations() writes at debug level; RMM logs a wrong size and an untracked pointer as errors', () => {
    const { stdout, lines } = logOf('outstanding-and-errors');
    const [ptr, allocated] = stdout.split(' ');
    expect(allocated).toBe('0');
    expect(lines).toEqual([
      `debug Outstanding Allocations: 0x${ptr}: 1000 B`,
      '',
      'error Alloc bytes (2000) and Dealloc bytes (1000) do not match',
      `error Deallocating a pointer that was not tracked. Ptr: 0x${ptr} [1000B], Current Num. Allocations: 0`,
      'debug Outstanding Allocations: ',
      '',
    ]);
  });

  it('with stacks, the log has them too', () => {
    const { lines } = logOf('outstanding-with-stacks');
    expect(lines[0]).toMatch(/^debug Outstanding Allocations: 0x[0-9a-f]+: 10 B : callstack:$/);
    expect(lines[1]).toMatch(/^#0 in /);
    expect(lines[2]).toMatch(/^#1 in allocatedForTheLog /);
  });

  it('errors are not logged when the level is above error', () => {
    const { lines } = logOf('errors-above-level');
    expect(lines).toEqual(['']);
  });
});
