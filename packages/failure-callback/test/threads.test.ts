// The callback runs only on the JavaScript thread that created the adaptor. Elsewhere the adaptor
// still allocates; an out-of-memory failure stays an OutOfMemoryError that says why the callback
// was not asked, and an error thrown below passes unchanged.
import { Worker } from 'node:worker_threads';
import { DeviceBuffer, OutOfMemoryError, getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { FailureCallbackResourceAdaptor } from '@rmmjs/failure-callback';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { allocateOnNativeThread, allocateOnThreadPool } from '@rmmjs/test-addon';
import { restoreCurrentDeviceResourceAfterEach, runWorker } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

const workerModule = (name: string) => new URL(`./workers/${name}.js`, import.meta.url);

const OUT_OF_MEMORY = 1; // RMMJS_ERR_OUT_OF_MEMORY
const notAsked = (message: string) =>
  `${message}; the failure callback cannot run on this thread (it runs only on the JavaScript thread that created the resource)`;

/** An adaptor over a 4 KiB limiter whose callback records its calls and retries. */
function limited() {
  const calls: number[] = [];
  const mr = new FailureCallbackResourceAdaptor(
    new LimitingResourceAdaptor(getCurrentDeviceResource(), 4096),
    (nbytes) => {
      calls.push(nbytes);
      return calls.length < 100;
    },
  );
  return { calls, mr };
}

const previous = restoreCurrentDeviceResourceAfterEach();

describe.each([
  ['does not import @rmmjs/failure-callback', false, 'DeviceMemoryResource'],
  ['imports @rmmjs/failure-callback', true, 'FailureCallbackResourceAdaptor'],
])('a worker that %s and gets the adaptor from getCurrentDeviceResource()', (_, imports, className) => {
  it('allocates; out of memory it gets the OutOfMemoryError and the callback is not called', async () => {
    const { calls, mr } = limited();
    setCurrentDeviceResource(mr);
    const seen = await runWorker(workerModule('out-of-memory-here'), { workerData: { imports } });
    expect(seen).toEqual([
      className,
      [1, 2, 3],
      [true, 'ERR_RMM_OUT_OF_MEMORY', notAsked('Exceeded memory limit (failed to allocate 8.000000 KiB)')],
    ]);
    expect(calls).toEqual([]);
    // On its own thread the callback is asked.
    expect(() => new DeviceBuffer({ size: 8192 })).toThrow(OutOfMemoryError);
    expect(calls).toHaveLength(100);
  });
});

describe('threads that run no JavaScript', () => {
  it('a native thread allocates, and out of memory gets the failure without a call', () => {
    const { calls, mr } = limited();
    expect(allocateOnNativeThread(mr, 4096)).toEqual([0, '']);
    expect(allocateOnNativeThread(mr, 4097)).toEqual([
      OUT_OF_MEMORY,
      notAsked('Exceeded memory limit (failed to allocate 4.000977 KiB)'),
    ]);
    expect(calls).toEqual([]);
  });

  it('a thread-pool thread likewise', async () => {
    const { calls, mr } = limited();
    await expect(allocateOnThreadPool(mr, 2048)).resolves.toEqual([0, '']);
    await expect(allocateOnThreadPool(mr, 5000)).resolves.toEqual([
      OUT_OF_MEMORY,
      notAsked('Exceeded memory limit (failed to allocate 4.882812 KiB)'),
    ]);
    expect(calls).toEqual([]);
  });
});

describe('an adaptor created by a worker that has exited', () => {
  it('still allocates; out of memory says the callback is gone', async () => {
    await runWorker(workerModule('leaves-adaptor'));
    const orphan = getCurrentDeviceResource();
    expect(orphan).toBeInstanceOf(FailureCallbackResourceAdaptor);
    new DeviceBuffer({ size: 4096 }).free();
    let error: OutOfMemoryError | undefined;
    try {
      new DeviceBuffer({ size: 4097 });
    } catch (caught) {
      error = caught as OutOfMemoryError;
    }
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error?.message).toBe(
      'Exceeded memory limit (failed to allocate 4.000977 KiB); the failure callback cannot run: the JavaScript environment (thread) that created the resource has exited',
    );
    setCurrentDeviceResource(previous);
    orphan[Symbol.dispose]();
  });
});

describe('an error thrown in another thread below the adaptor', () => {
  it('passes through unchanged in that thread', async () => {
    // The worker makes a CallbackMemoryResource that throws OutOfMemoryError and publishes it;
    // the main thread wraps it in an adaptor and publishes that; the worker allocates through it.
    const worker = new Worker(workerModule('throws-below'));
    const next = () => new Promise((resolve) => worker.once('message', resolve));
    expect(await next()).toBe('published');
    const calls: number[] = [];
    const mr = new FailureCallbackResourceAdaptor(getCurrentDeviceResource(), (nbytes) => {
      calls.push(nbytes);
      return true;
    });
    setCurrentDeviceResource(mr);
    worker.postMessage('allocate');
    expect(await next()).toEqual(['DeviceMemoryResource', true]);
    expect(calls).toEqual([]);
    await worker.terminate();
  });
});
