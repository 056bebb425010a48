// PER_THREAD_DEFAULT_STREAM.synchronizeAsync() waits on a thread of libuv's pool, where the
// per-thread default stream is that thread's own: the wait must be for this thread's stream. On a
// GPU, copies of a few milliseconds queued here are still running when the wait starts; once it
// has resolved, this thread's stream has nothing left (the fake driver runs copies at once, so
// there is nothing to see there).
import { DeviceBuffer, PER_THREAD_DEFAULT_STREAM } from '@rmmjs/core';
import { onGpu } from '@rmmjs/test-helpers';
import { expect, it } from 'vitest';
import { streamQuery } from '../index.js';

const CUDA_SUCCESS = 0;
const CUDA_ERROR_NOT_READY = 600;
const MiB = 1 << 20;

it.runIf(onGpu())("PER_THREAD_DEFAULT_STREAM.synchronizeAsync waits for this thread's queued copies", async () => {
  using source = new DeviceBuffer({ size: 256 * MiB, stream: PER_THREAD_DEFAULT_STREAM });
  using target = new DeviceBuffer({ size: 256 * MiB, stream: PER_THREAD_DEFAULT_STREAM });
  let stillRunning = 0;
  for (let round = 0; round < 5; round++) {
    for (let i = 0; i < 64; i++) target.copyFromDevice(source, PER_THREAD_DEFAULT_STREAM);
    if (streamQuery(PER_THREAD_DEFAULT_STREAM.handle) === CUDA_ERROR_NOT_READY) stillRunning++;
    await PER_THREAD_DEFAULT_STREAM.synchronizeAsync();
    expect(streamQuery(PER_THREAD_DEFAULT_STREAM.handle)).toBe(CUDA_SUCCESS);
  }
  // The copies were still running when the wait began in some round at least: the test saw a wait.
  expect(stillRunning).toBeGreaterThan(0);
});
