// @rmmjs/test-helpers' runInProcess with a script module: what it passes to the child, and what
// comes back from it.
import { runInProcess } from '@rmmjs/test-helpers';
import { expect, it } from 'vitest';

const child = (name: string) => new URL(`./children/${name}.js`, import.meta.url);

it('starts the module with args, nodeArgs and env merged over this environment (undefined removes)', () => {
  const run = runInProcess(child('echoes'), {
    args: ['3', 'two words'],
    nodeArgs: ['--expose-gc'],
    env: { RMMJS_TEST_ECHO: 'echoed', HOME: undefined },
  });
  expect(run).toEqual({
    status: 3,
    signal: null,
    stdout: JSON.stringify({ args: ['3', 'two words'], execArgv: ['--expose-gc'], echo: 'echoed', home: false }),
    stderr: 'to stderr\n',
  });
});

it('with debugLog, returns the text of the file RMM_DEBUG_LOG_FILE named', () => {
  expect(runInProcess(child('writes-debug-log'), { debugLog: true })).toEqual({
    status: 0,
    signal: null,
    stdout: '',
    stderr: '',
    log: 'written\n',
  });
});

it('kills a process still running after timeout ms, with its threads in stderr', () => {
  const run = runInProcess(child('hangs'), { timeout: 1000 });
  expect([run.status, run.signal]).toEqual([null, 'SIGKILL']);
  expect(run.stderr).toContain('still running after 1000 ms');
});

it('collect() (@rmmjs/test-helpers/child) runs the finalizers of what it collected; it needs --expose-gc', () => {
  expect(runInProcess(child('collects'), { nodeArgs: ['--expose-gc'] })).toMatchObject({ status: 0, stdout: 'true' });
  const without = runInProcess(child('collects'));
  expect(without.status).toBe(1);
  expect(without.stderr).toContain('Error: collect() needs node --expose-gc');
});
