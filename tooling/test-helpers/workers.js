// Running code on another thread or in a fresh process, with workspace packages imported as the
// package under test resolves them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { resolveFromPackage } from './basics.js';

/** The file URL of a workspace package (or one of its exports) as the package under test resolves it. */
export function packageUrl(name) {
  return pathToFileURL(resolveFromPackage(name)).href;
}

/**
 * Runs the worker module at `url` (a file that ends with `answer(work)` from
 * `@rmmjs/test-helpers/worker`) with `workerData`, and resolves with what its work returns; a
 * throw rejects with `Error("<code>: <message>")`, as does a worker that exits without answering
 * or fails to load. Settles once the worker is gone (terminated after it answered), so its
 * references to resources have been released by then.
 */
export function runWorker(url, { workerData } = {}) {
  return answerOf(new Worker(url, { workerData }));
}

// The worker's one message ({ ok } or { error }, see worker.js), once the worker has exited.
function answerOf(worker) {
  return new Promise((resolve, reject) => {
    let answer;
    worker.once('message', (message) => {
      answer = message;
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (answer === undefined) reject(new Error(`the worker exited (code ${code}) without a result`));
      else if (answer.error) reject(new Error(answer.error));
      else resolve(answer.ok);
    });
  });
}

const supervisor = fileURLToPath(new URL('./supervise.js', import.meta.url));

/**
 * spawnSync(command, args, { env, timeout }) with text output, but a process still running after
 * `timeout` ms (a hang) has its threads' native stacks written to `stderr` (gdb, where installed)
 * before it is killed (SIGKILL): `status` is then null and `signal` 'SIGKILL'. Without `timeout`,
 * plain spawnSync.
 */
export function spawnWithHangReport(command, args, { env, timeout } = {}) {
  if (timeout === undefined) return spawnSync(command, args, { env, encoding: 'utf8' });
  // The supervisor has up to a minute more to write the stacks (gdb's own limit).
  return spawnSync(process.execPath, [supervisor, String(timeout), command, ...args], {
    env,
    encoding: 'utf8',
    timeout: timeout + 90_000,
    killSignal: 'SIGKILL',
  });
}

/**
 * Runs the child script module at `script` (its URL, e.g. `new URL('./children/<name>.js',
 * import.meta.url)`) in a fresh `node` with `nodeArgs`, for what a process can do only once (load a
 * driver, open the debug log, exit with buffers alive), with `args` as its `process.argv.slice(2)`.
 * `env` is merged over this process's environment (`undefined` removes a variable). With
 * `debugLog`, RMM_DEBUG_LOG_FILE names a fresh file whose text comes back as `log` ('' when nothing
 * was logged). Returns the exit status, trimmed stdout and stderr. With `timeout` (ms), a process
 * still running then is killed (SIGKILL): `status` is null and `signal` says so, so a hang is a
 * result instead of a stuck suite (with the native stacks of its threads in `stderr`, as
 * spawnWithHangReport).
 */
export function runInProcess(script, { args = [], env = {}, nodeArgs = [], debugLog = false, timeout } = {}) {
  const dir = debugLog ? mkdtempSync(join(tmpdir(), 'rmmjs-debug-log-')) : undefined;
  const logFile = dir && join(dir, 'debug.log');
  const merged = { ...process.env, ...(debugLog ? { RMM_DEBUG_LOG_FILE: logFile } : {}), ...env };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete merged[key];
  try {
    const run = spawnWithHangReport(process.execPath, [...nodeArgs, fileURLToPath(script), ...args], {
      env: merged,
      timeout,
    });
    const result = { status: run.status, signal: run.signal, stdout: run.stdout.trim(), stderr: run.stderr };
    if (debugLog) result.log = readIfThere(logFile);
    return result;
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

function readIfThere(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
