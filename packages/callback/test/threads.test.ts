// The callbacks run only on the JavaScript thread that created the resource; every other thread
// gets ERR_RMM_WRONG_THREAD at once (no deadlock, no crash), also after that thread is gone.
import { DeviceBuffer, RMMError, getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { CallbackMemoryResource } from '@rmmjs/callback';
import { allocateOnNativeThread, allocateOnThreadPool } from '@rmmjs/test-addon';
import { recordingCallbackResource, restoreCurrentDeviceResourceAfterEach, runWorker } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';
import { runChild, workerModule } from './support.js';

const WRONG_THREAD = 9; // RMMJS_ERR_WRONG_THREAD
const otherThread = (op: string) =>
  `CallbackMemoryResource: the ${op} callback cannot run on this thread (it runs only on the JavaScript thread that created the resource)`;
const exited = (op: string) =>
  `CallbackMemoryResource: the ${op} callback cannot run: the JavaScript environment (thread) that created the resource has exited`;

const previous = restoreCurrentDeviceResourceAfterEach();

describe.each([
  ['does not import @rmmjs/callback', false, 'DeviceMemoryResource'],
  ['imports @rmmjs/callback', true, 'CallbackMemoryResource'],
])('a worker that %s and gets the resource from getCurrentDeviceResource()', (_, imports, className) => {
  it('gets ERR_RMM_WRONG_THREAD from allocate, deallocate and DeviceBuffer, and no callback runs', async () => {
    const { calls, mr } = recordingCallbackResource();
    setCurrentDeviceResource(mr);
    const seen = await runWorker(workerModule('wrong-thread'), { workerData: { imports } });
    expect(seen).toEqual([
      className,
      [true, 'RMMError', 'ERR_RMM_WRONG_THREAD', otherThread('allocate')],
      [true, 'RMMError', 'ERR_RMM_WRONG_THREAD', otherThread('deallocate')],
      [true, 'RMMError', 'ERR_RMM_WRONG_THREAD', otherThread('allocate')],
    ]);
    expect(calls).toEqual([]);
    // Still fine on its own thread.
    new DeviceBuffer({ size: 256 }).free();
    expect(calls).toEqual(['allocate 256', 'deallocate 256']);
  });
});

describe('threads that run no JavaScript', () => {
  it('a native thread gets RMMJS_ERR_WRONG_THREAD', () => {
    const { calls, mr } = recordingCallbackResource();
    expect(allocateOnNativeThread(mr, 1000)).toEqual([WRONG_THREAD, otherThread('allocate')]);
    expect(calls).toEqual([]);
  });

  it('a thread-pool thread gets RMMJS_ERR_WRONG_THREAD', async () => {
    const { calls, mr } = recordingCallbackResource();
    await expect(allocateOnThreadPool(mr, 1000)).resolves.toEqual([WRONG_THREAD, otherThread('allocate')]);
    expect(calls).toEqual([]);
  });
});

describe('a resource created by a worker', () => {
  it('works in that worker, and errors there reach its caller unchanged', async () => {
    const seen = await runWorker(workerModule('own-resource'));
    expect(seen).toEqual([[3], [5, 6, 7], true]);
  });

  it('fails cleanly once the worker has exited', async () => {
    await runWorker(workerModule('leaves-current'));
    const orphan = getCurrentDeviceResource();
    expect(orphan).toBeInstanceOf(CallbackMemoryResource);
    for (const [fn, op] of [
      [() => orphan.allocate(64), 'allocate'],
      [() => orphan.deallocate(4096n, 64), 'deallocate'],
      [() => new DeviceBuffer({ size: 64 }), 'allocate'],
    ] as const) {
      let error: RMMError | undefined;
      try {
        fn();
      } catch (caught) {
        error = caught as RMMError;
      }
      expect(error).toBeInstanceOf(RMMError);
      expect(error?.code).toBe('ERR_RMM_WRONG_THREAD');
      expect(error?.message).toBe(exited(op));
    }
    expect(allocateOnNativeThread(orphan, 64)).toEqual([WRONG_THREAD, exited('allocate')]);
    setCurrentDeviceResource(previous);
    orphan[Symbol.dispose](); // the last reference goes on this thread: nothing to release
  });
});

describe('transfer() of its buffers to another thread', () => {
  const refusal = (name: string) =>
    `DeviceBuffer cannot be transferred: its resource (${name}) frees memory through JavaScript, ` +
    'which runs only on the thread that created it; copy the bytes into a buffer of another resource';

  it('is refused with ERR_RMM_WRONG_THREAD, also through an adaptor; the buffer stays as it was', async () => {
    const { calls, mr } = recordingCallbackResource();
    const { LimitingResourceAdaptor } = await import('@rmmjs/limiting');
    const limited = new LimitingResourceAdaptor(mr, 1 << 20);
    for (const resource of [mr, limited]) {
      const buffer = new DeviceBuffer({ data: new Uint8Array([1, 2, 3]), mr: resource });
      let error: RMMError | undefined;
      try {
        buffer.transfer();
      } catch (caught) {
        error = caught as RMMError;
      }
      expect(error).toBeInstanceOf(RMMError);
      expect(error?.code).toBe('ERR_RMM_WRONG_THREAD');
      expect(error?.message).toBe(refusal(resource.constructor.name));
      expect([buffer.freed, [...buffer.toBytes()]]).toEqual([false, [1, 2, 3]]);
      buffer.free();
    }
    expect(calls).toEqual(['allocate 3', 'deallocate 3', 'allocate 3', 'deallocate 3']);
    expect(limited.getAllocatedBytes()).toBe(0);
    limited[Symbol.dispose]();
  });

  it('the resource can be shared: a worker gets it from the token, and its calls there fail cleanly', async () => {
    const { calls, mr } = recordingCallbackResource();
    const seen = await runWorker(workerModule('shared-wrong-thread'), { workerData: mr.share() });
    expect(seen).toEqual(['CallbackMemoryResource', 'ERR_RMM_WRONG_THREAD', otherThread('allocate')]);
    expect(calls).toEqual([]);
  });
});

describe('concurrency', () => {
  it('four workers allocate through resources of their own at the same time', async () => {
    const results = await Promise.all(
      [1, 2, 3, 4].map((seed) => runWorker(workerModule('own-churn'), { workerData: { seed } })),
    );
    expect(results).toEqual([
      [200, 400],
      [200, 400],
      [200, 400],
      [200, 400],
    ]);
  });
});

describe('lifetime across threads', () => {
  it('functions of a resource that dies on a worker are released on the creating thread', () => {
    const run = runChild('worker-holds-functions');
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('0 1');
  });
});
