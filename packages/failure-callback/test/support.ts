// Helpers of this suite. @rmmjs/callback and @rmmjs/limiting are not dependencies of this
// package: the tests import their builds by path (build them first: `pnpm build` at the root).
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

export const coreEntry = fileURLToPath(new URL('../../core/dist/index.js', import.meta.url));
export const failureCallbackEntry = fileURLToPath(new URL('../dist/index.js', import.meta.url));
export const callbackEntry = fileURLToPath(new URL('../../callback/dist/index.js', import.meta.url));
export const limitingEntry = fileURLToPath(new URL('../../limiting/dist/index.js', import.meta.url));

/**
 * Runs `source` (the body of an async function with `core` in scope) in a worker thread and
 * resolves with what it returns, once the worker has exited; a throw rejects with `code: message`.
 */
export function runWorker(source: string): Promise<unknown> {
  const worker = new Worker(
    `import(${JSON.stringify(coreEntry)}).then(async (core) => {
      const { parentPort } = await import('node:worker_threads');
      try { parentPort.postMessage({ ok: await (async () => { ${source} })() }); }
      catch (e) { parentPort.postMessage({ error: e.code + ': ' + e.message }); }
    });`,
    { eval: true },
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
