// Operations per second with N worker_threads sharing one resource (the current device
// resource, which the registry shares across threads): each does allocate+free pairs of
// `nbytes` for `seconds`.
import { Worker } from 'node:worker_threads';
import * as core from '@rmmjs/core';

const coreUrl = import.meta.resolve('@rmmjs/core');

/**
 * Operations per second (an allocate+free pair counts as two) of `workers` worker threads sharing
 * `mr`, each doing pairs of `nbytes` bytes (default 1 MiB) for `seconds` (default 1). `mr` is the
 * current device resource while they run; the previous one is put back.
 */
export async function threadOpsPerSecond(
  mr: core.DeviceMemoryResource,
  workers: number,
  { nbytes = 1 << 20, seconds = 1 }: { nbytes?: number; seconds?: number } = {},
): Promise<number> {
  const previous = core.setCurrentDeviceResource(mr);
  try {
    const threads = Array.from(
      { length: workers },
      () =>
        new Worker(
          `
      const { parentPort } = await import('node:worker_threads');
      const core = await import(${JSON.stringify(coreUrl)});
      const mr = core.getCurrentDeviceResource();
      for (let i = 0; i < 1000; i++) mr.deallocate(mr.allocate(${nbytes}), ${nbytes});
      parentPort.postMessage('ready');
      parentPort.once('message', () => {
        const end = performance.now() + ${seconds * 1000};
        let ops = 0;
        while (performance.now() < end) {
          for (let i = 0; i < 256; i++) mr.deallocate(mr.allocate(${nbytes}), ${nbytes});
          ops += 512;
        }
        parentPort.postMessage(ops);
      });`,
          { eval: true },
        ),
    );
    await Promise.all(
      threads.map(
        (t) =>
          new Promise((resolve, reject) => {
            t.once('message', resolve);
            t.once('error', reject);
          }),
      ),
    );
    const done = threads.map((t) => new Promise<number>((resolve) => t.once('message', resolve)));
    for (const t of threads) t.postMessage('go');
    const ops = (await Promise.all(done)).reduce((a, b) => a + b, 0);
    await Promise.all(threads.map((t) => t.terminate()));
    return ops / seconds;
  } finally {
    core.setCurrentDeviceResource(previous);
  }
}
