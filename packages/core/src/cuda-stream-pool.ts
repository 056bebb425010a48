import { RMMError } from './errors.js';
import { Stream } from './stream.js';
import { validateBoolean, validateInteger, validateOptions } from './validate.js';

/** Options of `CudaStreamPool`. */
export interface CudaStreamPoolOptions {
  /** How many streams (default 16). */
  poolSize?: number;
  /** Create the streams non-blocking, as `StreamOptions.nonBlocking`. Default false. */
  nonBlocking?: boolean;
}

/** A fixed set of streams handed out round-robin, as RMM's cuda_stream_pool. */
export class CudaStreamPool implements Disposable {
  readonly #streams: Stream[];
  #next = 0;

  constructor(options?: CudaStreamPoolOptions) {
    const { poolSize = 16, nonBlocking = false } = validateOptions<CudaStreamPoolOptions>(options);
    validateInteger(poolSize, 'options.poolSize', 0, 1 << 20);
    validateBoolean(nonBlocking, 'options.nonBlocking');
    if (poolSize === 0) throw new RMMError('Stream pool size must be greater than zero');
    this.#streams = [];
    try {
      for (let i = 0; i < poolSize; i++) this.#streams.push(new Stream({ nonBlocking }));
    } catch (error) {
      this[Symbol.dispose](); // the streams made so far, now rather than when they are collected
      throw error;
    }
  }

  /** The next stream round-robin, or stream `streamId % poolSize`. */
  getStream(streamId?: number): Stream {
    if (streamId === undefined) {
      const stream = this.#streams[this.#next];
      this.#next = (this.#next + 1) % this.#streams.length;
      return stream;
    }
    validateInteger(streamId, 'streamId', 0, Number.MAX_SAFE_INTEGER);
    return this.#streams[streamId % this.#streams.length];
  }

  /** The number of streams in the pool. */
  getPoolSize(): number {
    return this.#streams.length;
  }

  /** Disposes every stream of the pool (a stream a `DeviceBuffer` still uses goes when the buffer does). */
  [Symbol.dispose](): void {
    for (const stream of this.#streams) stream[Symbol.dispose]();
  }
}
