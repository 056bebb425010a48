// The hooks' addresses go to other libraries, which may call them after the worker thread that
// loaded @rmmjs/function-allocator has exited (Node then unloads that thread's addons): the main
// thread, which never imported the package, calls them after the worker is gone.
import { runInProcess } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

describe('hooks started by a worker that has exited', () => {
  it('still allocate from the current device resource and free to it', () => {
    const run = runInProcess(new URL('./children/calls-an-exited-workers-hooks.js', import.meta.url));
    expect({ status: run.status, signal: run.signal, stderr: run.stderr }).toEqual({
      status: 0,
      signal: null,
      stderr: '',
    });
    expect(JSON.parse(run.stdout)).toEqual({ exitCode: 0, allocated: true });
  });
});
