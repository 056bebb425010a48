/**
 * Which worker thread replays each logged thread. A worker thread is a V8 isolate of its own (a few
 * MiB each: a log of thousands of threads would take gigabytes), so the logged threads share at
 * most `workers` of them, by default one per core. Every event still runs in the log's order, the
 * workers taking turns (protocol.ts), so each logged thread's order and the order across threads
 * are those of the log; what the logged threads of one worker share is its per-thread state.
 */
import { availableParallelism } from 'node:os';
import { invalidArgValue } from '@rmmjs/core/internal';
import type { AllocationLog } from '../log/allocation-log.js';
import { integerIn } from '../validate.js';

/** The most worker threads a replay starts (`ReplayOptions.workers`, `--workers`). */
export const MAX_REPLAY_WORKERS = 256;

/** The worker threads of a replay, by default: one per core. */
export const defaultReplayWorkers = () => Math.min(availableParallelism(), MAX_REPLAY_WORKERS);

export const validateWorkers = integerIn(1, MAX_REPLAY_WORKERS);

// The per-thread default stream's handle (cudaStreamPerThread).
const PER_THREAD_DEFAULT_HANDLE = 2n;

export interface WorkerPlan {
  /** How many worker threads the replay starts. */
  workers: number;
  /** The worker of each logged thread (indexed as `AllocationLog.threads`). */
  workerOf: Int32Array;
}

/**
 * Spreads the logged threads over `min(threads, maxWorkers)` workers, one each when there are
 * enough. A logged thread that replays on the per-thread default stream needs a worker of its
 * own: that stream is its thread's, and two logged threads on one worker would share one. A log
 * with more of them than `maxWorkers` cannot be replayed (ERR_INVALID_ARG_VALUE).
 */
export function planWorkers(log: AllocationLog, maxWorkers: number, name = 'log'): WorkerPlan {
  const threads = log.threads.length;
  const workers = Math.min(threads, maxWorkers);
  const perThreadDefault = log.streams.indexOf(PER_THREAD_DEFAULT_HANDLE);
  const ownWorker = new Uint8Array(threads);
  if (perThreadDefault !== -1) {
    for (let i = 0; i < log.events; i++) {
      if (log.slot[i] >= 0 && log.stream[i] === perThreadDefault) ownWorker[log.thread[i]] = 1;
    }
  }
  const owners = ownWorker.reduce((n, own) => n + own, 0);
  if (owners > workers) {
    throw invalidArgValue(
      name,
      `uses the per-thread default stream on ${owners} threads, more than the ${workers} worker threads of the ` +
        `replay, and each of them needs a worker thread of its own (set workers, or --workers, to ${owners} or more)`,
    );
  }
  // Those threads take workers 0..owners-1; the others take turns over all the workers, from the
  // next one on, so that with one worker per thread every thread has its own.
  const workerOf = new Int32Array(threads);
  let own = 0;
  let shared = owners;
  for (let t = 0; t < threads; t++) workerOf[t] = ownWorker[t] === 1 ? own++ : shared++ % workers;
  return { workers, workerOf };
}
