import { type StreamNative } from './native.js';
export interface StreamOptions {
    /** The stream does not synchronise with the legacy default stream (CU_STREAM_NON_BLOCKING). */
    nonBlocking?: boolean;
    /** Lower numbers are higher priority; CUDA clamps to the device's range. Default 0. */
    priority?: number;
}
/**
 * A CUDA stream. `new Stream()` creates one on the current device (a token in host mode, where
 * every operation completes at once); `Stream.fromHandle` wraps one made elsewhere.
 * Disposing releases this object's reference: the stream itself goes once no `DeviceBuffer`
 * uses it.
 */
export declare class Stream implements Disposable {
    #private;
    constructor(options?: StreamOptions);
    /** Wraps an existing CUstream handle (not owned: disposing does not destroy it). */
    static fromHandle(handle: bigint | number): Stream;
    /** The CUstream handle (0n, 1n, 2n for the default streams). */
    get handle(): bigint;
    /** The device the stream was created on. */
    get device(): number;
    /** Blocks until all work queued on the stream has finished. */
    synchronize(): void;
    /** Resolves once all work queued so far has finished; the event loop keeps running. */
    synchronizeAsync(): Promise<void>;
    /** True for DEFAULT_STREAM, LEGACY_DEFAULT_STREAM and PER_THREAD_DEFAULT_STREAM. */
    isDefault(): boolean;
    equals(other: unknown): boolean;
    [Symbol.dispose](): void;
    toString(): string;
}
/** The legacy default stream as CUDA's runtime names it (handle 0). */
export declare const DEFAULT_STREAM: Stream;
/** CU_STREAM_LEGACY (handle 1). */
export declare const LEGACY_DEFAULT_STREAM: Stream;
/** CU_STREAM_PER_THREAD (handle 2). */
export declare const PER_THREAD_DEFAULT_STREAM: Stream;
/**
 * The native stream of an optional `stream` argument: `undefined` is the default stream;
 * `null` and non-streams are `ERR_INVALID_ARG_TYPE`.
 */
export declare function streamArg(stream: unknown, name?: string): StreamNative | undefined;
export interface CudaStreamPoolOptions {
    /** How many streams (default 16). */
    poolSize?: number;
    nonBlocking?: boolean;
}
/** A fixed set of streams handed out round-robin, as RMM's cuda_stream_pool. */
export declare class CudaStreamPool implements Disposable {
    #private;
    constructor(options?: CudaStreamPoolOptions);
    /** The next stream round-robin, or stream `streamId % poolSize`. */
    getStream(streamId?: number): Stream;
    getPoolSize(): number;
    [Symbol.dispose](): void;
}
