import type { Worker } from 'node:worker_threads';
import type { WorkloadCounts, WorkloadOptions } from './workload.js';

/** One run's options: the Workload's (but `mr` and `tolerate`) and how long it runs. */
export type RunOptions = Omit<WorkloadOptions, 'mr' | 'tolerate'> & {
  steps?: number;
  /** Until the worker is terminated. */
  forever?: boolean;
  /** A Date.now() after which it stops. */
  until?: number;
  /** Post a progress message every so many steps. */
  progressEvery?: number;
};

export interface RunResult {
  counts: WorkloadCounts;
  /** The class name of the current device resource as the worker saw it. */
  resource: string;
}

export function startWorker(options: RunOptions): {
  worker: Worker;
  firstProgress: Promise<number>;
  /** The run's result, or { exitCode } when the worker exited without one. */
  done: Promise<RunResult | { exitCode: number }>;
};

export function workerPool(count: number): Promise<{
  run(options: (i: number) => RunOptions): Promise<RunResult[]>;
  close(): Promise<number[]>;
}>;
