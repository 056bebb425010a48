// logOutstandingAllocations() and the errors RMM logs, read back from $RMM_DEBUG_LOG_FILE in a
// child process (the debug logger opens its file once per process).
import { runInProcess } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

/** Runs code with `core`, `native` (core's internals) and `TrackingResourceAdaptor`; returns its log lines. */
function logOf(code: string): { stdout: string; lines: string[] } {
  const run = runInProcess(
    `const { native } = internal;
      const { TrackingResourceAdaptor } = tracking;
      ${code}
      native.flushLog();`,
    { modules: { internal: '@rmmjs/core/internal', tracking: '@rmmjs/tracking' }, debugLog: true },
  );
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  // "[thread][time][level ] message": keep "level message"
  const lines = run.log!.split('\n').map((line) => line.replace(/^\[ *\d+\]\[[\d:]+\]\[(\w+) *\] /, '$1 '));
  return { stdout: run.stdout, lines };
}

describe('TrackingResourceAdaptor debug log', () => {
  it('logOutstandingAllocations() writes at debug level; RMM logs a wrong size and an untracked pointer as errors', () => {
    const { stdout, lines } = logOf(`
      const mr = new TrackingResourceAdaptor(core.getCurrentDeviceResource());
      const ptr = mr.allocate(1000);
      mr.logOutstandingAllocations(); // the default level is info: nothing
      native.setLogLevel(1); // debug
      mr.logOutstandingAllocations();
      const inner = new TrackingResourceAdaptor(mr);
      const other = inner.allocate(2000);
      inner.deallocate(other, 1000); // logged once: the upstream tracker gets the tracked 2000
      inner.deallocate(ptr, 1000); // not tracked by inner: logged, and freed by mr
      mr.logOutstandingAllocations();
      console.log(ptr.toString(16), mr.getAllocatedBytes());`);
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
    const { lines } = logOf(`
      const mr = new TrackingResourceAdaptor(core.getCurrentDeviceResource(), { captureStacks: true });
      function allocatedForTheLog() { return mr.allocate(10); }
      const ptr = allocatedForTheLog();
      native.setLogLevel(1);
      mr.logOutstandingAllocations();
      mr.deallocate(ptr, 10);`);
    expect(lines[0]).toMatch(/^debug Outstanding Allocations: 0x[0-9a-f]+: 10 B : callstack:$/);
    expect(lines[1]).toMatch(/^#0 in /);
    expect(lines[2]).toMatch(/^#1 in allocatedForTheLog /);
  });

  it('errors are not logged when the level is above error', () => {
    const { lines } = logOf(`
      native.setLogLevel(5); // critical
      const mr = new TrackingResourceAdaptor(core.getCurrentDeviceResource());
      const ptr = mr.allocate(100);
      mr.deallocate(ptr, 99);`);
    expect(lines).toEqual(['']);
  });
});
