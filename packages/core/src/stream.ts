import { invalidArgType, outOfRange } from './errors.js';
import { native, type StreamNative } from './native.js';
import { afterAsyncCopies, asyncCopiesDone } from './stream-order.js';
import { validateBoolean, validateInteger, validateOptions } from './validate.js';

/** Options of `new Stream()`. */
export interface StreamOptions {
  /** The stream does not synchronise with the legacy default stream (CU_STREAM_NON_BLOCKING). */
  nonBlocking?: boolean;
  /** Lower numbers are higher priority; CUDA clamps to the device's range. Default 0. */
  priority?: number;
}

let nativeOf: (stream: Stream) => StreamNative;
let isStream: (value: unknown) => value is Stream;
let fromNative: (stream: StreamNative, shared: boolean) => Stream;
let constructing: { stream: StreamNative; shared: boolean } | undefined;

/**
 * A CUDA stream. `new Stream()` creates one on the current device (a token in host mode, where
 * every operation completes at once); `Stream.fromHandle` wraps one made elsewhere.
 * Disposing releases this object's reference: the stream itself goes once no `DeviceBuffer`
 * uses it.
 */
export class Stream implements Disposable {
  #native: StreamNative;
  #shared: boolean;

  static {
    nativeOf = (stream) => stream.#native;
    // A brand check: no trap or getter runs (a Proxy is not a Stream).
    isStream = (value): value is Stream => typeof value === 'object' && value !== null && #native in value;
    fromNative = (stream, shared) => {
      constructing = { stream, shared };
      try {
        return new Stream();
      } finally {
        constructing = undefined;
      }
    };
  }

  constructor(options?: StreamOptions) {
    if (constructing !== undefined) {
      this.#native = constructing.stream;
      this.#shared = constructing.shared;
      return;
    }
    const { nonBlocking = false, priority = 0 } = validateOptions<StreamOptions>(options);
    validateBoolean(nonBlocking, 'options.nonBlocking');
    validateInteger(priority, 'options.priority');
    this.#native = native.streamCreate(nonBlocking, priority);
    this.#shared = false;
  }

  /**
   * Wraps an existing CUstream handle (not owned: disposing does not destroy it). Its `device` is
   * its context's, asked of the driver when first needed (reading `device`, a copy or a
   * synchronisation on it), not the current device. A handle that only serves as a token for a
   * resource that never gives it to the driver is never looked at.
   */
  static fromHandle(handle: bigint | number): Stream {
    if (typeof handle === 'number') {
      if (!Number.isSafeInteger(handle) || handle < 0) throw outOfRange('handle', 'a non-negative integer', handle);
      handle = BigInt(handle);
    }
    if (typeof handle !== 'bigint') throw invalidArgType('handle', 'of type bigint or number', handle);
    if (handle < 0n || handle >= 2n ** 64n) throw outOfRange('handle', 'a 64-bit unsigned integer', handle);
    return fromNative(native.streamBorrow(handle), false);
  }

  /** The CUstream handle (0n, 1n, 2n for the default streams). */
  get handle(): bigint {
    return native.streamHandle(this.#native);
  }

  /** The device the stream belongs to: the one it was created on, a borrowed stream's context's, and the current device for the default streams. */
  get device(): number {
    return native.streamInfo(this.#native).device;
  }

  /** Blocks until all work queued on the stream has finished (asynchronous copies on it included). */
  synchronize(): void {
    afterAsyncCopies(this.#native);
    native.streamSynchronize(this.#native);
  }

  /** Resolves once all work queued so far has finished (asynchronous copies on it included); the event loop keeps running. */
  synchronizeAsync(): Promise<void> {
    const copies = asyncCopiesDone(this.#native);
    const queued = native.streamSynchronizeAsync(this.#native);
    return copies === undefined ? queued : Promise.all([copies, queued]).then(() => undefined);
  }

  /** True for DEFAULT_STREAM, LEGACY_DEFAULT_STREAM and PER_THREAD_DEFAULT_STREAM. */
  isDefault(): boolean {
    return this.handle <= 2n;
  }

  /**
   * True when `other` is a `Stream` with the same CUstream handle; false when either was disposed
   * (a disposed `Stream` has no handle to compare). Never throws.
   */
  equals(other: unknown): boolean {
    if (!isStream(other)) return false;
    const mine = handleUnlessDisposed(this);
    return mine !== undefined && mine === handleUnlessDisposed(other);
  }

  /**
   * Releases this object's reference: a stream `new Stream()` made is destroyed once no `Stream` or
   * `DeviceBuffer` uses it (one from `fromHandle` is never destroyed). A no-op on the default-stream
   * constants and on a second call; other use after it is `RMMError` `ERR_RMM_DISPOSED`.
   */
  [Symbol.dispose](): void {
    if (!this.#shared) native.streamDispose(this.#native);
  }

  toString(): string {
    return `Stream(0x${this.handle.toString(16)})`;
  }
}

/** The legacy default stream as CUDA's runtime names it (handle 0). */
export const DEFAULT_STREAM: Stream = fromNative(native.streamBorrow(0n), true);
/** CU_STREAM_LEGACY (handle 1). */
export const LEGACY_DEFAULT_STREAM: Stream = fromNative(native.streamBorrow(1n), true);
/** CU_STREAM_PER_THREAD (handle 2). */
export const PER_THREAD_DEFAULT_STREAM: Stream = fromNative(native.streamBorrow(2n), true);

/**
 * The Stream of a native stream (adopts its reference): the shared constants for the default
 * streams, whose handles mean the same stream on every thread (the per-thread one: this thread's).
 */
export function adoptStream(stream: StreamNative): Stream {
  const handle = native.streamHandle(stream);
  if (handle > 2n) return fromNative(stream, false);
  native.streamDispose(stream);
  return [DEFAULT_STREAM, LEGACY_DEFAULT_STREAM, PER_THREAD_DEFAULT_STREAM][Number(handle)];
}

/**
 * The native stream of an optional `stream` argument: `undefined` is the default stream;
 * `null` and non-streams are `ERR_INVALID_ARG_TYPE`.
 */
export function streamArg(stream: unknown, name = 'stream'): StreamNative | undefined {
  if (stream === undefined) return undefined;
  if (isStream(stream)) return nativeOf(stream);
  if (stream === null) {
    const error = invalidArgType(name, 'a Stream', stream);
    error.message = `${name} argument cannot be null. ${error.message}`;
    throw error;
  }
  throw invalidArgType(name, 'an instance of Stream', stream);
}

/** A Stream's handle, or undefined once it was disposed. */
export function handleUnlessDisposed(stream: Stream): bigint | undefined {
  try {
    return stream.handle;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_RMM_DISPOSED') return undefined;
    throw error;
  }
}
