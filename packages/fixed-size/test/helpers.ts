// What this package's suites run over (entries of the shared table), and its worker runner.
import { runInWorker, upstreams } from '@rmmjs/test-helpers';

export const availableUpstreams = () =>
  upstreams(
    'the current device resource',
    'CudaMemoryResource',
    'ManagedMemoryResource',
    'CudaAsyncMemoryResource',
    'LimitingResourceAdaptor',
  );

/** Runs `source` (the body of an async function with `core` and `fixedSize` in scope) in a worker thread. */
export function runWorker(source: string, modules: Record<string, string> = {}): Promise<unknown> {
  return runInWorker(source, { modules: { fixedSize: '@rmmjs/fixed-size', ...modules } });
}
