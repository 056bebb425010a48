// The hooks' addresses go to other libraries, which may call them after the worker thread that
// loaded @rmmjs/function-allocator has exited (Node then unloads that thread's addons): the main
// thread, which never imported the package, calls them after the worker is gone.
import { runInProcess } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

describe('hooks started by a worker that has exited', () => {
  it('still allocate from the current device resource and free to it', () => {
    const workerUrl = new URL('./workers/posts-hooks.js', import.meta.url).href;
    const run = runInProcess(
      `import { Worker } from 'node:worker_threads';
       // Not this process's --input-type, which a worker started from a file refuses.
       const worker = new Worker(new URL(${JSON.stringify(workerUrl)}), { execArgv: [] });
       // Both listeners at once: 'exit' may be emitted in the same turn that delivers the message.
       const message = new Promise((resolve) => worker.once('message', resolve));
       const exited = new Promise((resolve) => worker.once('exit', resolve));
       const [alloc, free] = await message;
       const exitCode = await exited;
       const ptr = testAddon.allocatorHookConsumer.torchAlloc(alloc, 4096, 0, 0n);
       testAddon.allocatorHookConsumer.torchFree(free, ptr, 4096, 0, 0n);
       console.log(JSON.stringify({ exitCode, allocated: ptr !== 0n }));`,
      { modules: { testAddon: '@rmmjs/test-addon' } },
    );
    expect({ status: run.status, signal: run.signal, stderr: run.stderr }).toEqual({
      status: 0,
      signal: null,
      stderr: '',
    });
    expect(JSON.parse(run.stdout)).toEqual({ exitCode: 0, allocated: true });
  });
});
