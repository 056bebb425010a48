// Helpers of this suite: the paths the eval'd workers and child processes import, and runners.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

export const coreEntry = fileURLToPath(new URL('../../core/dist/index.js', import.meta.url));
export const internalEntry = fileURLToPath(new URL('../../core/dist/internal.js', import.meta.url));
export const callbackEntry = fileURLToPath(new URL('../dist/index.js', import.meta.url));
export const limitingEntry = fileURLToPath(new URL('../../limiting/dist/index.js', import.meta.url));

/**
 * Runs `source` (the body of an async function with `core` in scope) in a worker thread and
 * resolves with what it returns, once the worker has exited; a throw rejects with `code: message`.
 */
export function runWorker(source: string, workerData?: unknown): Promise<unknown> {
  const worker = new Worker(
    `import(${JSON.stringify(coreEntry)}).then(async (core) => {
      const { parentPort, workerData } = await import('node:worker_threads');
      try { parentPort.postMessage({ ok: await (async () => { ${source} })() }); }
      catch (e) { parentPort.postMessage({ error: e.code + ': ' + e.message }); }
    });`,
    { eval: true, workerData },
  );
  return new Promise((resolve, reject) => {
    worker.once('message', (message) => {
      void worker.terminate().then(() => {
        if (message.error) reject(new Error(message.error));
        else resolve(message.ok);
      }, reject);
    });
    worker.once('error', reject);
  });
}

/** Runs `code` in a fresh `node --expose-gc` with `core` and `callback` imported. */
export function runNode(code: string): { status: number | null; stdout: string; stderr: string } {
  const script = `const core = await import(${JSON.stringify(coreEntry)});
    const callback = await import(${JSON.stringify(callbackEntry)});
    ${code}`;
  const run = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: process.env,
  });
  return { status: run.status, stdout: run.stdout.trim(), stderr: run.stderr };
}
