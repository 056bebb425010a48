// Node unloads an addon's library when the last environment that loaded it ends. A resource made
// by an addon that only a worker loaded lives on after that worker exits (here as the current
// device resource), so its code must stay loaded: the main thread, which never loaded the addon,
// allocates through it, then drops the last reference (its destroy runs) and exits normally.
import { runInProcess } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

describe('a resource whose addon only an exited worker loaded', () => {
  it('keeps working on the main thread, and its last release there ends cleanly', () => {
    const run = runInProcess(new URL('./children/uses-exited-workers-resource.js', import.meta.url));
    expect({ status: run.status, signal: run.signal, stderr: run.stderr }).toEqual({
      status: 0,
      signal: null,
      stderr: '',
    });
    expect(JSON.parse(run.stdout)).toEqual({
      exitCode: 0,
      typeName: 'CountingResourceAdaptor',
      mapped: true,
      sevens: true,
    });
  });
});
