// What this package's suites run over (entries of the shared table), and its worker runner.
import { runInWorker, upstreams } from '@rmmjs/test-helpers';

export const availableUpstreams = () =>
  upstreams('the current device resource', 'CudaMemoryResource', 'ManagedMemoryResource', 'LimitingResourceAdaptor');

/** Runs `source` (the body of an async function with `core`, `binning` and `fixedSize` in scope) in a worker thread. */
export function runWorker(source: string): Promise<unknown> {
  return runInWorker(source, { modules: { binning: '@rmmjs/binning', fixedSize: '@rmmjs/fixed-size' } });
}
