// Exiting with work in flight, each case in a child process of its own: live buffers (through a
// pool and a limiting adaptor), a stream, asynchronous copies that take several slices, a pending
// stream synchronisation and an asynchronous upload, from the main thread (process.exit, the end
// of the script, an uncaught exception or rejection) and from a worker (process.exit inside it,
// its end with buffers live, terminate(), an uncaught exception). The process must end with the
// expected status, never hang (a child is killed after 3 minutes) and never crash; after a worker is
// gone its buffers must have come back.
import { MiB, onFake, runInProcess, withCuda } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

// A hang is a child still running after this (a loaded machine can take a minute for a case).
const TIMEOUT_MS = 180_000;
const slow = { timeout: 2 * TIMEOUT_MS };
// Asynchronous copies go in slices of 64 MiB with CUDA, 16 MiB without: one copy of a slice and
// a quarter is in flight between its slices.
const BIG = (withCuda() ? 80 : 20) * MiB;
const env = onFake() ? { RMMJS_FAKE_CUDA_MEMORY: String(1024 * MiB) } : {};
const child = new URL('./children/exits-working.js', import.meta.url);

// Runs children/exits-working.js with the big buffer's size and `args`.
function run(...args: string[]) {
  const result = runInProcess(child, { args: [String(BIG), ...args], env, timeout: TIMEOUT_MS });
  expect(result.signal, `killed (a hang?); stderr: ${result.stderr}`).toBeNull();
  expect(result.stderr).not.toMatch(/FATAL|Segmentation|Abort|core dumped|terminate called|Sanitizer|runtime error/);
  return result;
}

describe('the main thread exits with buffers, pools, streams and asynchronous work live', slow, () => {
  it('the script ends (the pending work completes first): status 0', () => {
    const result = run('main', 'end');
    expect([result.status, result.stdout, result.stderr]).toEqual([0, 'started', '']);
  });

  it('process.exit(0) with the copies in flight: status 0', () => {
    const result = run('main', 'exit');
    expect([result.status, result.stderr]).toEqual([0, '']);
  });

  it('process.exit(7) from a timer, between slices: status 7', () => {
    const result = run('main', 'exit-from-timer');
    expect([result.status, result.stderr]).toEqual([7, '']);
  });

  it('process.exitCode = 3 and the end of the script: status 3', () => {
    const result = run('main', 'exit-code');
    expect([result.status, result.stderr]).toEqual([3, '']);
  });

  it('an uncaught exception with the copies in flight: status 1 and the error', () => {
    const result = run('main', 'throw');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('Error: boom at exit');
  });

  it('an unhandled rejection with the copies in flight: status 1 and the error', () => {
    const result = run('main', 'reject');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('Error: rejected at exit');
  });
});

describe('a worker exits with buffers, streams and asynchronous work live', slow, () => {
  // The child's main thread runs workers/exits-working.js (startWork, then `ending`), does as
  // `onStarted` says when the worker says it started, waits for it to exit and prints the exit
  // code and the bytes the limiting adaptor still counts (the main thread holds none).
  function runWorker(ending: string, onStarted = 'wait') {
    const result = run('worker', ending, onStarted);
    expect(result.status, result.stderr).toBe(0);
    return { ...JSON.parse(result.stdout), stderr: result.stderr };
  }

  it('process.exit(5) inside the worker: its exit code is 5, its buffers come back', () => {
    expect(runWorker('exit')).toEqual({ exitCode: 5, counted: 0, stderr: '' });
  });

  it('the worker ends with its buffers live (its pending work completes first): 0, they come back', () => {
    expect(runWorker('end')).toEqual({ exitCode: 0, counted: 0, stderr: '' });
  });

  it('terminate() with the copies in flight: 1, its buffers come back', () => {
    expect(runWorker('stay', 'terminate')).toEqual({
      exitCode: 1,
      counted: 0,
      stderr: '',
    });
  });

  it('an uncaught exception in the worker: 1, its buffers come back', () => {
    const result = runWorker('throw');
    expect([result.exitCode, result.counted]).toEqual([1, 0]);
    expect(result.stderr).toContain('worker error: worker boom');
  });

  it('process.exit(0) on the main thread while the worker works: status 0', () => {
    const result = run('worker', 'churn', 'exit');
    expect([result.status, result.stderr]).toEqual([0, '']);
  });
});
