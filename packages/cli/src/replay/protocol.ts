/**
 * What the replay's main thread and its workers share. Events run in log order across workers
 * (each replays the events of one or more logged threads, see worker-plan.ts): `turn[w]` holds
 * the index of the next event worker w may run; whoever ran event i hands the turn to the owner
 * of event i + 1 (Atomics.store + notify), so each worker sleeps until its turn.
 * `pointers[slot]` is the replayed pointer of a logged allocation, so any worker can free it.
 */
import type { SharedResourceToken } from '@rmmjs/core';

export const PROGRESS = 0; // control[PROGRESS]: events done
export const ABORT = 1; // control[ABORT]: 1 once a thread failed; waiting threads leave
export const CONTROL_LENGTH = 2;
/** A turn value no event has: set on abort so no thread sleeps through it. */
export const ABORTED_TURN = -2;

export interface ReplayWorkerData {
  /** The resource replayed on (a share() token: the worker's current device may be another one). */
  resource: SharedResourceToken;
  /** This worker's index and its events (those of its logged threads), ascending. */
  worker: number;
  events: Int32Array;
  /** Per event (shared): action, size, slot, owning worker, stream index. */
  action: Uint8Array;
  size: Float64Array;
  slot: Int32Array;
  owner: Int32Array;
  stream: Int32Array;
  /** Stream handles by stream index. */
  streamHandles: bigint[];
  pointers: BigUint64Array;
  /** 1 where the replayed allocation of a slot ran out of memory (its free is skipped). */
  failed: Uint8Array;
  control: Int32Array;
  turn: Int32Array;
}

/** A worker's last message. */
export type ReplayWorkerResult =
  | { kind: 'done'; failures: number; /** ms in allocate and deallocate */ inAllocator: number; end: bigint | null }
  | { kind: 'aborted' }
  | { kind: 'error'; message: string; event: number };

/** Stops every worker: set ABORT, then change and wake every turn so none sleeps on. */
export function abortReplay(control: Int32Array, turn: Int32Array): void {
  Atomics.store(control, ABORT, 1);
  for (let w = 0; w < turn.length; w++) {
    Atomics.store(turn, w, ABORTED_TURN);
    Atomics.notify(turn, w);
  }
}
