import type { DeviceMemoryResource } from '@rmmjs/core';

/** A buffer whose bytes are not the ones written to it. */
export class CorruptionError extends Error {}

export interface WorkloadOptions {
  /** The random sequence. */
  seed: number;
  /** The resource (default: the current device resource at each allocation). */
  mr?: DeviceMemoryResource;
  /** Streams of its own to spread buffers over, besides the default stream (default 2). */
  streams?: number;
  /** At most this many buffers live at once (default 16). */
  maxLive?: number;
  /** Buffers of 1..maxSize bytes, log-uniform (default 64 KiB). */
  maxSize?: number;
  /** Also asynchronous copies (default true). */
  async?: boolean;
  /** Whether a failure other than OutOfMemoryError is expected: counted, and the workload goes on. */
  tolerate?: (error: unknown) => boolean;
}

export interface WorkloadCounts {
  steps: number;
  allocations: number;
  frees: number;
  copies: number;
  resizes: number;
  asyncCopies: number;
  checks: number;
  checkedBytes: number;
  outOfMemory: number;
  tolerated: number;
}

/**
 * A seeded random workload of DeviceBuffers: allocate, free, resize, copy, each buffer's bytes
 * checked against its pattern before it is freed (a mismatch throws CorruptionError).
 */
export class Workload {
  constructor(options: WorkloadOptions);
  readonly counts: WorkloadCounts;
  /** Buffers held now. */
  readonly live: number;
  /** The sum of the live buffers' capacities. */
  readonly liveBytes: number;
  liveCapacities(): number[];
  step(): Promise<void>;
  run(steps: number, yieldEvery?: number): Promise<void>;
  /** Checks and frees every buffer, then disposes its streams. */
  close(): void;
}
