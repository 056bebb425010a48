import { invalidArgType, outOfRange, RMMError } from './errors.js';
import { native } from './native.js';
import { validateBoolean, validateInteger, validateOptions } from './validate.js';
let nativeOf;
let fromNative;
let constructing;
/**
 * A CUDA stream. `new Stream()` creates one on the current device (a token in host mode, where
 * every operation completes at once); `Stream.fromHandle` wraps one made elsewhere.
 * Disposing releases this object's reference: the stream itself goes once no `DeviceBuffer`
 * uses it.
 */
export class Stream {
    #native;
    #shared;
    static {
        nativeOf = (stream) => stream.#native;
        fromNative = (stream, shared) => {
            constructing = { stream, shared };
            try {
                return new Stream();
            }
            finally {
                constructing = undefined;
            }
        };
    }
    constructor(options) {
        if (constructing !== undefined) {
            this.#native = constructing.stream;
            this.#shared = constructing.shared;
            return;
        }
        const { nonBlocking = false, priority = 0 } = validateOptions(options);
        validateBoolean(nonBlocking, 'options.nonBlocking');
        validateInteger(priority, 'options.priority');
        this.#native = native.streamCreate(nonBlocking, priority);
        this.#shared = false;
    }
    /** Wraps an existing CUstream handle (not owned: disposing does not destroy it). */
    static fromHandle(handle) {
        if (typeof handle === 'number') {
            if (!Number.isSafeInteger(handle) || handle < 0)
                throw outOfRange('handle', 'a non-negative integer', handle);
            handle = BigInt(handle);
        }
        if (typeof handle !== 'bigint')
            throw invalidArgType('handle', 'of type bigint or number', handle);
        if (handle < 0n || handle >= 2n ** 64n)
            throw outOfRange('handle', 'a 64-bit unsigned integer', handle);
        return fromNative(native.streamBorrow(handle), false);
    }
    /** The CUstream handle (0n, 1n, 2n for the default streams). */
    get handle() {
        return native.streamHandle(this.#native);
    }
    /** The device the stream was created on. */
    get device() {
        return native.streamInfo(this.#native).device;
    }
    /** Blocks until all work queued on the stream has finished. */
    synchronize() {
        native.streamSynchronize(this.#native);
    }
    /** Resolves once all work queued so far has finished; the event loop keeps running. */
    synchronizeAsync() {
        return native.streamSynchronizeAsync(this.#native);
    }
    /** True for DEFAULT_STREAM, LEGACY_DEFAULT_STREAM and PER_THREAD_DEFAULT_STREAM. */
    isDefault() {
        return this.handle <= 2n;
    }
    equals(other) {
        return other instanceof Stream && other.handle === this.handle;
    }
    [Symbol.dispose]() {
        if (!this.#shared)
            native.streamDispose(this.#native);
    }
    toString() {
        return `Stream(0x${this.handle.toString(16)})`;
    }
}
/** The legacy default stream as CUDA's runtime names it (handle 0). */
export const DEFAULT_STREAM = fromNative(native.streamBorrow(0n), true);
/** CU_STREAM_LEGACY (handle 1). */
export const LEGACY_DEFAULT_STREAM = fromNative(native.streamBorrow(1n), true);
/** CU_STREAM_PER_THREAD (handle 2). */
export const PER_THREAD_DEFAULT_STREAM = fromNative(native.streamBorrow(2n), true);
/**
 * The native stream of an optional `stream` argument: `undefined` is the default stream;
 * `null` and non-streams are `ERR_INVALID_ARG_TYPE`.
 */
export function streamArg(stream, name = 'stream') {
    if (stream === undefined)
        return undefined;
    if (stream instanceof Stream)
        return nativeOf(stream);
    if (stream === null) {
        const error = invalidArgType(name, 'a Stream', stream);
        error.message = `${name} argument cannot be null. ${error.message}`;
        throw error;
    }
    throw invalidArgType(name, 'an instance of Stream', stream);
}
/** A fixed set of streams handed out round-robin, as RMM's cuda_stream_pool. */
export class CudaStreamPool {
    #streams;
    #next = 0;
    constructor(options) {
        const { poolSize = 16, nonBlocking = false } = validateOptions(options);
        validateInteger(poolSize, 'options.poolSize', 0, 1 << 20);
        validateBoolean(nonBlocking, 'options.nonBlocking');
        if (poolSize === 0)
            throw new RMMError('Stream pool size must be greater than zero');
        this.#streams = Array.from({ length: poolSize }, () => new Stream({ nonBlocking }));
    }
    /** The next stream round-robin, or stream `streamId % poolSize`. */
    getStream(streamId) {
        if (streamId === undefined) {
            const stream = this.#streams[this.#next];
            this.#next = (this.#next + 1) % this.#streams.length;
            return stream;
        }
        validateInteger(streamId, 'streamId', 0, Number.MAX_SAFE_INTEGER);
        return this.#streams[streamId % this.#streams.length];
    }
    getPoolSize() {
        return this.#streams.length;
    }
    [Symbol.dispose]() {
        for (const stream of this.#streams)
            stream[Symbol.dispose]();
    }
}
//# sourceMappingURL=stream.js.map