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
const modules = { pool: '@rmmjs/pool', limiting: '@rmmjs/limiting' };
// The URL of test/workers/<name>.js, as a string literal of a child's code.
const workerUrl = (name: string) => JSON.stringify(new URL(`./workers/${name}.js`, import.meta.url).href);

// Makes everything live and starts the asynchronous work (workers/start-work.js).
const startWork = `
  const { startWork } = await import(${workerUrl('start-work')});
  startWork(${BIG});`;

// The main thread's stack: a pool under a limiting adaptor that counts what is live.
const stack = `
  const pooled = new pool.PoolMemoryResource(core.getCurrentDeviceResource(), { initialPoolSize: ${4 * MiB} });
  const counted = new limiting.LimitingResourceAdaptor(pooled, ${1024 * MiB});
  core.setCurrentDeviceResource(counted);`;

// The child's code that starts workers/exits-working.js as `worker`, ending as `ending` says (not
// with the child's --input-type, which a worker started from a file refuses).
const startWorker = (ending: string) => `
  const { Worker } = await import('node:worker_threads');
  const worker = new Worker(new URL(${workerUrl('exits-working')}), {
    workerData: { bigBytes: ${BIG}, ending: '${ending}' },
    execArgv: [],
  });`;

function run(code: string) {
  const result = runInProcess(`${stack}\n${code}`, { modules, env, timeout: TIMEOUT_MS });
  expect(result.signal, `killed (a hang?); stderr: ${result.stderr}`).toBeNull();
  expect(result.stderr).not.toMatch(/FATAL|Segmentation|Abort|core dumped|terminate called|Sanitizer|runtime error/);
  return result;
}

describe('the main thread exits with buffers, pools, streams and asynchronous work live', slow, () => {
  it('the script ends (the pending work completes first): status 0', () => {
    const result = run(`${startWork}\nconsole.log('started');`);
    expect([result.status, result.stdout, result.stderr]).toEqual([0, 'started', '']);
  });

  it('process.exit(0) with the copies in flight: status 0', () => {
    const result = run(`${startWork}\nprocess.exit(0);`);
    expect([result.status, result.stderr]).toEqual([0, '']);
  });

  it('process.exit(7) from a timer, between slices: status 7', () => {
    const result = run(`${startWork}\nsetTimeout(() => process.exit(7), 1);`);
    expect([result.status, result.stderr]).toEqual([7, '']);
  });

  it('process.exitCode = 3 and the end of the script: status 3', () => {
    const result = run(`${startWork}\nprocess.exitCode = 3;`);
    expect([result.status, result.stderr]).toEqual([3, '']);
  });

  it('an uncaught exception with the copies in flight: status 1 and the error', () => {
    const result = run(`${startWork}\nsetTimeout(() => { throw new Error('boom at exit'); }, 1);`);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('Error: boom at exit');
  });

  it('an unhandled rejection with the copies in flight: status 1 and the error', () => {
    const result = run(`${startWork}\nPromise.reject(new Error('rejected at exit'));`);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('Error: rejected at exit');
  });
});

describe('a worker exits with buffers, streams and asynchronous work live', slow, () => {
  // The child's main thread runs workers/exits-working.js (startWork, then `ending`), waits for it
  // to exit and prints the exit code and the bytes the limiting adaptor still counts (the main
  // thread holds none). `main` runs when the worker says it started.
  function runWorker(ending: string, main = '') {
    const result = run(`
      ${startWorker(ending)}
      worker.on('error', (error) => console.error('worker error: ' + error.message));
      worker.once('message', () => { ${main} });
      const exitCode = await new Promise((resolve) => worker.once('exit', resolve));
      console.log(JSON.stringify({ exitCode, counted: counted.getAllocatedBytes() }));`);
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
    expect(runWorker('stay', 'void worker.terminate();')).toEqual({
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
    const result = run(`
      ${startWorker('churn')}
      worker.once('message', () => process.exit(0));`);
    expect([result.status, result.stderr]).toEqual([0, '']);
  });
});
