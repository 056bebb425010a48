// @rmmjs/test-helpers' runWorker and the worker's answer(): what comes back for each way a worker
// module can end.
import { rejected, runWorker } from '@rmmjs/test-helpers';
import { expect, it } from 'vitest';

const workerModule = (name: string) => new URL(`./workers/${name}.js`, import.meta.url);

it('resolves with what the work returned, with workerData passed in', async () => {
  expect(await runWorker(workerModule('answers'), { workerData: [1, 2, 3] })).toEqual([2, 4, 6]);
});

it('rejects with "<code>: <message>" when the work throws', async () => {
  const error = await rejected(runWorker(workerModule('throws')));
  expect(error).toBeInstanceOf(Error);
  expect(error.message).toBe('ERR_OUT_OF_RANGE: out of range in the worker');
});

it('rejects when the worker exits without answering', async () => {
  const error = await rejected(runWorker(workerModule('exits-without-answer')));
  expect(error.message).toBe('the worker exited (code 3) without a result');
});

it('rejects with the load error when the module cannot load', async () => {
  const error = await rejected(runWorker(workerModule('cannot-load')));
  expect(error.code).toBe('ERR_MODULE_NOT_FOUND');
  expect(error.message).toContain("'@rmmjs/no-such-package'");
});
