/**
 * Asynchronous copies in their streams' order. `copyToHostAsync` and `copyFromHostAsync` copy on
 * the JavaScript thread, slice by slice with the event loop turning in between (see
 * DeviceBuffer#copyInSlices): CUDA never sees them as work on their stream. So that each is
 * ordered on its stream like any other work, this thread keeps the copies in flight in the order
 * they were issued, and every later operation on a stream they are ordered with comes after them:
 * - a later asynchronous copy waits for them (without blocking the event loop), then starts;
 * - a later synchronous operation (a copy, resize, reserve, copy(), prefetch, synchronize()) first
 *   finishes them on the spot: it blocks, as it does for any earlier work on its stream;
 * - free() needs neither: a buffer freed during its copy gives its memory back when the copy ends.
 *
 * Streams are told apart by handle. The legacy default stream (handle 0, and CU_STREAM_LEGACY, 1)
 * is ordered with every other stream, as CUDA orders it with blocking streams (a non-blocking one
 * is ordered too: more order than CUDA promises, never less). Finishing a copy also finishes every
 * copy issued before it, whatever their streams: they may be what it waits for.
 */
import { setImmediate as eventLoopTurn } from 'node:timers/promises';
import { native, type StreamNative } from './native.js';

const LEGACY = 0n;
const keyOf = (handle: bigint): bigint => (handle === 1n ? LEGACY : handle);
const ordered = (a: bigint, b: bigint): boolean => a === b || a === LEGACY || b === LEGACY;

// The key of the stream an undefined stream argument stands for (the native side decides it).
const defaultKey = (() => {
  const stream = native.streamDefault();
  try {
    return keyOf(native.streamHandle(stream));
  } finally {
    native.streamDispose(stream);
  }
})();

/** The copies in flight on this thread, in the order they were issued. */
const inFlight: OrderedCopy[] = [];

/** One asynchronous copy: `step()` copies its next slice and says whether it was the last. */
export class OrderedCopy {
  /** Its stream's key: the handle, with CU_STREAM_LEGACY as the legacy default stream's 0. */
  readonly key: bigint;
  readonly #step: () => boolean;
  readonly #end: () => void;
  readonly #earlier: Promise<void>[];
  #finished = false;
  #failure: { error: unknown } | undefined;
  #settle!: () => void;
  /** Settles (never rejects) once the copy has finished, one way or the other. */
  readonly done = new Promise<void>((resolve) => (this.#settle = resolve));

  /** Queues the copy on `stream`; `end()` runs once when it finishes (it unpins the buffer). */
  constructor(stream: StreamNative, step: () => boolean, end: () => void) {
    this.key = keyOf(native.streamHandle(stream));
    this.#step = step;
    this.#end = end;
    this.#earlier = orderedWith(this.key);
    inFlight.push(this);
  }

  /**
   * Runs the copy: waits for the copies it is ordered after, then for `waitForStream()` (the
   * stream's earlier work, off this thread), then copies slice by slice, the event loop turning in
   * between, unless a later synchronous operation finished it meanwhile. Rejects with the copy's
   * error.
   */
  async run(waitForStream: () => Promise<void>): Promise<void> {
    try {
      if (this.#earlier.length > 0) await Promise.all(this.#earlier);
      if (!this.#finished) await waitForStream();
      while (!this.#finished) {
        this.#copySlice();
        if (!this.#finished) await eventLoopTurn();
      }
    } catch (error) {
      this.#finish({ error }); // the wait failed (a CUDA error on the stream)
    }
    if (this.#failure !== undefined) throw this.#failure.error;
  }

  /** Copies what is left now, synchronously (a failure goes to run()'s promise). */
  complete(): void {
    while (!this.#finished) this.#copySlice();
  }

  #copySlice(): void {
    try {
      if (this.#step()) this.#finish(undefined);
    } catch (error) {
      this.#finish({ error });
    }
  }

  #finish(failure: { error: unknown } | undefined): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#failure = failure;
    inFlight.splice(inFlight.indexOf(this), 1);
    try {
      this.#end();
    } finally {
      this.#settle();
    }
  }
}

// The copies in flight that work on the stream of `key` comes after.
function orderedWith(key: bigint): Promise<void>[] {
  return inFlight.filter((copy) => ordered(copy.key, key)).map((copy) => copy.done);
}

// Finishes the copies in flight up to the last one that work on the stream of `key` comes after.
function finishBefore(key: bigint): void {
  for (;;) {
    let last = inFlight.length - 1;
    while (last >= 0 && !ordered(inFlight[last].key, key)) last--;
    if (last < 0) return;
    inFlight[0].complete();
  }
}

/**
 * Before a synchronous operation on `stream` (undefined: the default stream): finishes the
 * asynchronous copies it comes after. Costs nothing while no copy is in flight.
 */
export function afterAsyncCopies(stream: StreamNative | undefined): void {
  if (inFlight.length === 0) return;
  finishBefore(stream === undefined ? defaultKey : keyOf(native.streamHandle(stream)));
}

/** As afterAsyncCopies, for the stream whose handle `handle()` tells (asked only while copies are in flight). */
export function afterAsyncCopiesOn(handle: () => bigint): void {
  if (inFlight.length > 0) finishBefore(keyOf(handle()));
}

/** Before a synchronisation of every stream (a device's): finishes every asynchronous copy. */
export function afterAllAsyncCopies(): void {
  while (inFlight.length > 0) inFlight[0].complete();
}

/**
 * A promise of the end of the asynchronous copies that work queued now on `stream` comes after,
 * or undefined when there are none.
 */
export function asyncCopiesDone(stream: StreamNative): Promise<void> | undefined {
  if (inFlight.length === 0) return undefined;
  const copies = orderedWith(keyOf(native.streamHandle(stream)));
  return copies.length === 0 ? undefined : Promise.all(copies).then(() => undefined);
}
