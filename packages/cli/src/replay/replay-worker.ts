// A worker of a replay: runs the events of its logged threads, each when its turn comes (see protocol.ts).
import { parentPort, workerData } from 'node:worker_threads';
import {
  DEFAULT_STREAM,
  DeviceMemoryResource,
  LEGACY_DEFAULT_STREAM,
  OutOfMemoryError,
  PER_THREAD_DEFAULT_STREAM,
  Stream,
} from '@rmmjs/core';
import { Action } from '../log/allocation-log.js';
import { ABORT, abortReplay, PROGRESS, type ReplayWorkerData, type ReplayWorkerResult } from './protocol.js';

const data = workerData as ReplayWorkerData;
const { worker, events, action, size, slot, owner, stream, pointers, failed, control, turn } = data;
// The resource itself, not this thread's current one: that is of this thread's current device (0).
const mr = DeviceMemoryResource.fromShared(data.resource);
const defaults = [DEFAULT_STREAM, LEGACY_DEFAULT_STREAM, PER_THREAD_DEFAULT_STREAM];
const streams = data.streamHandles.map((handle) =>
  handle <= 2n ? defaults[Number(handle)] : Stream.fromHandle(handle),
);

function replay(): ReplayWorkerResult {
  let failures = 0;
  let inAllocator = 0;
  let end: bigint | null = null;
  for (const event of events) {
    for (;;) {
      const next = Atomics.load(turn, worker);
      if (next === event) break;
      if (Atomics.load(control, ABORT) !== 0) return { kind: 'aborted' };
      Atomics.wait(turn, worker, next);
    }
    const at = slot[event];
    const start = performance.now();
    try {
      if (at >= 0 && action[event] === Action.allocate) {
        try {
          pointers[at] = mr.allocate(size[event], streams[stream[event]]);
          failed[at] = 0;
        } catch (error) {
          if (!(error instanceof OutOfMemoryError)) throw error;
          failed[at] = 1;
          failures++;
        }
      } else if (at >= 0 && action[event] === Action.free) {
        if (failed[at] === 0) mr.deallocate(pointers[at], size[event], streams[stream[event]]);
        failed[at] = 0;
      }
    } catch (error) {
      abortReplay(control, turn);
      return { kind: 'error', message: error instanceof Error ? error.message : String(error), event };
    }
    inAllocator += performance.now() - start;
    const following = event + 1;
    Atomics.store(control, PROGRESS, following);
    if (following === owner.length) {
      end = process.hrtime.bigint();
    } else {
      const next = owner[following];
      Atomics.store(turn, next, following);
      if (next !== worker) Atomics.notify(turn, next, 1);
    }
  }
  return { kind: 'done', failures, inAllocator, end };
}

parentPort!.postMessage('ready');
parentPort!.postMessage(replay());
