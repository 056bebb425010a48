import { types } from 'node:util';
import { isMainThread } from 'node:worker_threads';
import { DeviceMemoryResource, resourceHandle, wrapResource } from './device-memory-resource.js';
import { invalidArgType, invalidArgValue, RMMError } from './errors.js';
import { native, type BufferGuardHandle, type BufferNative, type MemoryHandle, type StreamNative } from './native.js';
import { retryAfterReclaim, withReclaim } from './reclaim.js';
import { adoptStream, handleUnlessDisposed, Stream, streamArg } from './stream.js';
import { afterAsyncCopies, afterAsyncCopiesOn, OrderedCopy } from './stream-order.js';
import { makeToken, tokenId, type TransferredBufferToken } from './tokens.js';
import { validateInteger, validateOptions, validateSize } from './validate.js';

/** Host bytes: any ArrayBufferView (Uint8Array, Buffer, DataView, ...) or an ArrayBuffer. */
export type HostBytes = ArrayBufferView | ArrayBuffer;

/** Options of `new DeviceBuffer()`. */
export interface DeviceBufferOptions {
  /** Bytes to allocate; defaults to `data`'s length (or 0). */
  size?: number;
  /** Host bytes to copy in. */
  data?: HostBytes;
  /** The stream to allocate, copy and free on (default DEFAULT_STREAM). */
  stream?: Stream;
  /** The resource to allocate from (default: the current device resource). */
  mr?: DeviceMemoryResource;
}

/** The CUDA Array Interface (version 3) of a buffer: one-dimensional bytes. */
export interface CudaArrayInterface {
  /** `[pointer, readOnly]`: the device address and `false` (the memory is writable). */
  data: [bigint, boolean];
  /** `[size]`: the number of bytes. */
  shape: [number];
  /** `null`: the bytes are contiguous. */
  strides: null;
  /** `'|u1'`: unsigned bytes. */
  typestr: '|u1';
  /** The version of the interface, 3. */
  version: 3;
  /** The handle of the buffer's stream, for a consumer to order its work after; absent for handle 0. */
  stream?: bigint;
}

/** Anything that exposes device memory through the CUDA Array Interface. */
export interface CudaArrayLike {
  /** The interface under rmmjs's name (`DeviceBuffer`'s own); read first. */
  cudaArrayInterface?: unknown;
  /** The interface under Python's name; read when `cudaArrayInterface` is null or undefined. */
  __cuda_array_interface__?: unknown;
}

// The engine's own byteLength getters: a subclass or an own property cannot override them.
const typedArrayByteLength = getter(Object.getPrototypeOf(Uint8Array.prototype), 'byteLength');
const dataViewByteLength = getter(DataView.prototype, 'byteLength');
const arrayBufferByteLength = getter(ArrayBuffer.prototype, 'byteLength');

function getter(prototype: object, key: string): (this: unknown) => number {
  return Object.getOwnPropertyDescriptor(prototype, key)!.get as (this: unknown) => number;
}

function byteLength(bytes: unknown, name: string): number {
  if (types.isArrayBuffer(bytes)) return arrayBufferByteLength.call(bytes);
  if (types.isTypedArray(bytes)) return typedArrayByteLength.call(bytes); // 0 when detached or out of bounds
  // A DataView over a detached buffer, or out of bounds of a shrunk one, throws where a typed
  // array says 0 bytes (and so does the native side).
  if (types.isDataView(bytes)) {
    try {
      return dataViewByteLength.call(bytes);
    } catch {
      return 0;
    }
  }
  throw invalidArgType(name, 'an ArrayBufferView or ArrayBuffer', bytes);
}

const MAX_POINTER = 2n ** 64n - 1n;
// NumPy's array-interface typestr: byte order, kind, item size in bytes.
const TYPESTR = /^[<>|=][biufcmMOSUV]([1-9][0-9]*)$/;

/** A device address: a bigint or a safe integer from 0 to 2^64 - 1, else undefined. */
function pointerOf(value: unknown): bigint | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : undefined;
  return typeof value === 'bigint' && value >= 0n && value <= MAX_POINTER ? value : undefined;
}

function show(value: unknown): string {
  return typeof value === 'bigint' ? `${value}n` : typeof value === 'string' ? `'${value}'` : String(value);
}

// The interface of src; reading it may run src's getters. A Proxy that cannot give one (a revoked
// one, or one around a DeviceBuffer, whose getters need the buffer itself) is not an array.
function arrayInterfaceOf(src: object): unknown {
  try {
    const like = src as CudaArrayLike;
    return like.cudaArrayInterface ?? like.__cuda_array_interface__;
  } catch (error) {
    if (!types.isProxy(src)) throw error;
    const wrapped = invalidArgType('src', 'a DeviceBuffer or an object with cudaArrayInterface', src);
    (wrapped as Error & { cause?: unknown }).cause = error;
    throw wrapped;
  }
}

// The pointer and byte size of a one-dimensional contiguous CUDA array. A foreign interface is
// checked in full: a bad pointer or size would make the copy read from a wild address.
function deviceSource(src: unknown): { ptr: bigint; nbytes: number } {
  if (isDeviceBuffer(src)) return { ptr: src.ptr, nbytes: src.size };
  const cai = typeof src === 'object' && src !== null ? arrayInterfaceOf(src) : undefined;
  if (typeof cai !== 'object' || cai === null) {
    throw invalidArgType('src', 'a DeviceBuffer or an object with cudaArrayInterface', src);
  }
  const invalid = (reason: string) => invalidArgValue('src', `has an invalid cudaArrayInterface: ${reason}`);
  const { data, shape, strides, typestr } = cai as Record<string, unknown>;
  if (!Array.isArray(data) || data.length !== 2) throw invalid('data must be [pointer, readOnly]');
  const ptr = pointerOf(data[0]);
  if (ptr === undefined) throw invalid(`the data pointer must be an integer from 0 to 2^64 - 1, got ${show(data[0])}`);
  const itemsize = Number((typeof typestr === 'string' && TYPESTR.exec(typestr)?.[1]) || NaN);
  if (!(itemsize > 0)) throw invalid(`typestr must be like '|u1' or '<f4', got ${show(typestr)}`);
  if (!Array.isArray(shape) || !shape.every((n) => Number.isSafeInteger(n) && n >= 0)) {
    throw invalid('shape must be an array of non-negative integers');
  }
  if (shape.length > 1) {
    throw invalidArgValue('src', `must be a 1-D contiguous array, got a ${shape.length}-D array`);
  }
  if (
    strides != null &&
    (!Array.isArray(strides) || strides.length !== shape.length || (shape.length === 1 && strides[0] !== itemsize))
  ) {
    throw invalidArgValue('src', 'must be a 1-D contiguous array, got a non-contiguous array');
  }
  const nbytes = (shape.length === 0 ? 1 : (shape[0] as number)) * itemsize;
  if (!Number.isSafeInteger(nbytes)) throw invalid(`${nbytes} bytes is not a size`);
  if (ptr === 0n && nbytes > 0) throw invalid(`the data pointer is null, for ${nbytes} bytes`);
  return { ptr, nbytes };
}

// Hot-path functions read once (a property load on the addon's exports costs a few ns).
const { bufferCreate, bufferFree } = native;

// The stream of a buffer made, resized or reserved without one, as the native side picks it when it
// is given none (DEFAULT_STREAM).
const defaultStream = adoptStream(native.streamDefault());

// A DeviceBuffer being made around a native buffer: see #adopt.
let adopting: { attach: (target: DeviceBuffer) => BufferNative; stream?: Stream } | undefined;
let isDeviceBuffer: (value: unknown) => value is DeviceBuffer;
let nativeOf: (buffer: DeviceBuffer) => BufferNative | null;
let adoptMemoryOf: (memory: MemoryHandle, stream: Stream | undefined) => DeviceBuffer;

/**
 * Untyped device memory from a resource, as RMM's `DeviceBuffer`: it keeps its resource and
 * stream alive and frees `capacity()` bytes on its stream. Free it with `free()` or `using`;
 * garbage collection is only the fallback.
 */
export class DeviceBuffer implements Disposable {
  // The native handle; null once freed (native calls then throw ERR_RMM_DISPOSED).
  #native: BufferNative | null;
  // Its stream; undefined for a claimed buffer until first asked for (see get stream()).
  #stream: Stream | undefined;

  static {
    // A brand check: no getter runs (a Proxy is not a DeviceBuffer).
    isDeviceBuffer = (value): value is DeviceBuffer => typeof value === 'object' && value !== null && #native in value;
    nativeOf = (buffer) => buffer.#native;
    adoptMemoryOf = (memory, stream) => {
      const streamNative = streamArg(stream, 'options.stream');
      return DeviceBuffer.#adopt((target) => native.bufferAdopt(target, memory, streamNative), stream ?? defaultStream);
    };
  }

  constructor(options?: DeviceBufferOptions) {
    if (adopting !== undefined) {
      const { attach, stream } = adopting;
      // Taken before attach runs: a DeviceBuffer that JavaScript makes meanwhile (a resource's
      // callback, while copy() allocates) is its own, not a second copy.
      adopting = undefined;
      this.#native = attach(this);
      this.#stream = stream;
      return;
    }
    const { size, data, stream, mr } = validateOptions<DeviceBufferOptions>(options);
    let nbytes: number;
    if (data === undefined) {
      nbytes = size === undefined ? 0 : validateSize(size, 'options.size');
    } else {
      const length = byteLength(data, 'options.data');
      nbytes = size === undefined ? length : validateSize(size, 'options.size');
      if (nbytes > length) {
        throw invalidArgValue('options.data', `has ${length} bytes, fewer than options.size (${nbytes})`);
      }
    }
    const streamNative = streamArg(stream, 'options.stream');
    const mrHandle = mr === undefined ? undefined : resourceHandle(mr, 'options.mr');
    this.#stream = stream ?? defaultStream;
    try {
      this.#native = bufferCreate(this, mrHandle, nbytes, streamNative, data);
    } catch (error) {
      this.#native = retryAfterReclaim(error, () => bufferCreate(this, mrHandle, nbytes, streamNative, data), nbytes);
    }
  }

  // A DeviceBuffer around a native buffer that attach(target) creates, on `stream` (default: the
  // native buffer's own).
  static #adopt(attach: (target: DeviceBuffer) => BufferNative, stream?: Stream): DeviceBuffer {
    adopting = { attach, stream };
    try {
      return new DeviceBuffer();
    } finally {
      adopting = undefined;
    }
  }

  /** A new buffer holding a copy of `bytes`. */
  static toDevice(bytes: HostBytes, stream?: Stream): DeviceBuffer {
    byteLength(bytes, 'bytes');
    return new DeviceBuffer({ data: bytes, stream });
  }

  /** Like toDevice, without blocking the event loop during the copy (as copyFromHostAsync). */
  static async toDeviceAsync(bytes: HostBytes, stream?: Stream): Promise<DeviceBuffer> {
    const buffer = new DeviceBuffer({ size: byteLength(bytes, 'bytes'), stream });
    try {
      await buffer.copyFromHostAsync(bytes, stream);
    } catch (error) {
      buffer.free();
      throw error;
    }
    return buffer;
  }

  /**
   * The buffer that a `transfer()` token names, now owned by this thread: the same memory, size,
   * capacity, stream and resource, no copy. A token is claimed once: a second claim (or one after
   * `DeviceBuffer.reclaim`) is `ERR_RMM_ALREADY_CLAIMED`; a token from another process, forged or
   * altered, is `ERR_RMM_INVALID_TOKEN`.
   */
  static fromTransferred(token: TransferredBufferToken): DeviceBuffer {
    const id = tokenId(token, 'rmmjs:buffer');
    return DeviceBuffer.#adopt((target) => {
      const handle = native.bufferClaim(id, target);
      if (handle === null) {
        throw new RMMError(
          'This DeviceBuffer token was claimed already (or reclaimed): a transferred buffer is claimed once',
          { code: 'ERR_RMM_ALREADY_CLAIMED' },
        );
      }
      return handle;
    });
  }

  /**
   * Frees the memory of a transfer that nobody claimed (its receiver died, say): true when it did,
   * false when the buffer was claimed (or reclaimed) already. Transfers still unclaimed when the
   * process exits are freed then, with a warning in the debug log.
   */
  static reclaim(token: TransferredBufferToken): boolean {
    return native.bufferReclaimTransfer(tokenId(token, 'rmmjs:buffer'));
  }

  /** The size in bytes. */
  get size(): number {
    return native.bufferSize(this.#native);
  }

  /** The size in bytes, as `size` (RMM's Python name). */
  get nbytes(): number {
    return native.bufferSize(this.#native);
  }

  /** The device address (0n for an empty buffer). */
  get ptr(): bigint {
    return native.bufferPtr(this.#native);
  }

  /** The resource the memory came from. */
  get mr(): DeviceMemoryResource {
    return wrapResource(native.bufferResource(this.#native));
  }

  /**
   * The stream the buffer allocates and frees on. A buffer claimed from another thread makes it a
   * `Stream` of this thread when first asked (the default streams are the shared constants); like
   * any `Stream`, dispose it when done: the CUDA stream goes once no Stream or buffer uses it.
   */
  get stream(): Stream {
    this.#stream ??= adoptStream(native.bufferStream(this.#native));
    return this.#stream;
  }

  /** The device the memory is on. */
  get device(): number {
    return native.bufferDevice(this.#native);
  }

  /** True after free(). */
  get freed(): boolean {
    return this.#native === null;
  }

  /** The buffer as a CUDA Array Interface (version 3): its bytes, and its stream unless that is handle 0. */
  get cudaArrayInterface(): CudaArrayInterface {
    const cai: CudaArrayInterface = {
      data: [this.ptr, false],
      shape: [this.size],
      strides: null,
      typestr: '|u1',
      version: 3,
    };
    const handle = this.#streamHandle();
    if (handle !== 0n) cai.stream = handle;
    return cai;
  }

  // The handle of the buffer's stream. The buffer holds a reference of its own, so the stream lives
  // on after the Stream object it was given is disposed (by its CudaStreamPool, say): the handle
  // then comes from that reference.
  #streamHandle(): bigint {
    const handle = handleUnlessDisposed(this.stream);
    if (handle !== undefined) return handle;
    const own = native.bufferStream(this.#native);
    try {
      return native.streamHandle(own);
    } finally {
      native.streamDispose(own);
    }
  }

  /** Bytes allocated (>= size). */
  capacity(): number {
    return native.bufferCapacity(this.#native);
  }

  /** A deep copy on the same resource and stream. */
  copy(): DeviceBuffer {
    const source = this.#native;
    afterAsyncCopiesOn(() => this.#streamHandle());
    const nbytes = native.bufferSize(source); // ERR_RMM_DISPOSED when freed
    return withReclaim(() => DeviceBuffer.#adopt((target) => native.bufferCopy(source, target), this.#stream), nbytes);
  }

  /** Copies a DeviceBuffer or a 1-D contiguous CUDA array into the start of this buffer. */
  copyFromDevice(src: DeviceBuffer | CudaArrayLike, stream?: Stream): void {
    const streamNative = streamArg(stream);
    const { ptr, nbytes } = deviceSource(src);
    this.#checkSourceFits(nbytes, 'src');
    afterAsyncCopies(streamNative);
    native.bufferCopyFromDevice(this.#native, ptr, nbytes, streamNative);
  }

  /** Copies host bytes into the start of this buffer. */
  copyFromHost(bytes: HostBytes, stream?: Stream): void {
    const streamNative = streamArg(stream);
    this.#checkSourceFits(byteLength(bytes, 'bytes'), 'bytes');
    afterAsyncCopies(streamNative);
    native.bufferCopyFromHost(this.#native, bytes, streamNative);
  }

  /** Copies the buffer to `target` (returned), or to a new Uint8Array. */
  copyToHost(target?: undefined, stream?: Stream): Uint8Array;
  copyToHost<T extends HostBytes>(target: T, stream?: Stream): T;
  copyToHost<T extends HostBytes>(target?: T, stream?: Stream): T {
    const streamNative = streamArg(stream);
    const out = (target ?? new Uint8Array(this.size)) as T;
    this.#checkTargetFits(byteLength(out, 'target'));
    afterAsyncCopies(streamNative);
    native.bufferCopyToHost(this.#native, out, streamNative);
    return out;
  }

  /** The contents as a new Uint8Array. */
  toBytes(stream?: Stream): Uint8Array {
    return this.copyToHost(undefined, stream);
  }

  /**
   * copyToHost without blocking the event loop: the stream's earlier work is awaited off the
   * JavaScript thread, then the bytes are copied in slices with the event loop turning in between.
   * It is ordered on its stream like any other work: a later operation on the stream sees its
   * result (a synchronous one finishes it first, an asynchronous one runs after it). A target
   * transferred or shrunk meanwhile rejects with `ERR_INVALID_ARG_VALUE`.
   */
  copyToHostAsync(target?: undefined, stream?: Stream): Promise<Uint8Array>;
  copyToHostAsync<T extends HostBytes>(target: T, stream?: Stream): Promise<T>;
  async copyToHostAsync<T extends HostBytes>(target?: T, stream?: Stream): Promise<T> {
    const streamNative = streamArg(stream);
    const out = (target ?? new Uint8Array(this.size)) as T;
    this.#checkTargetFits(byteLength(out, 'target'));
    await this.#copyInSlices(out, this.size, true, streamNative, 'target');
    return out;
  }

  /** copyFromHost without blocking the event loop (as copyToHostAsync). */
  async copyFromHostAsync(bytes: HostBytes, stream?: Stream): Promise<void> {
    const streamNative = streamArg(stream);
    const nbytes = byteLength(bytes, 'bytes');
    this.#checkSourceFits(nbytes, 'bytes');
    await this.#copyInSlices(bytes, nbytes, false, streamNative, 'bytes');
  }

  /** Prefetches managed memory to `device` (default: the current one; -1: the host). */
  prefetch(device?: number, stream?: Stream): void {
    const target = device === undefined ? native.getDevice() : validateInteger(device, 'device', -1);
    const streamNative = streamArg(stream === undefined ? this.stream : stream);
    afterAsyncCopies(streamNative);
    native.bufferPrefetch(this.#native, target, streamNative);
  }

  /** Grows the capacity to at least `newCapacity` (contents kept); adopts `stream`. */
  reserve(newCapacity: number, stream?: Stream): void {
    validateSize(newCapacity, 'newCapacity');
    const streamNative = streamArg(stream);
    afterAsyncCopies(streamNative);
    withReclaim(() => native.bufferReserve(this.#native, newCapacity, streamNative), newCapacity);
    this.#stream = stream ?? defaultStream;
  }

  /** Sets the size; within the capacity the pointer stays, beyond it the memory moves. */
  resize(newSize: number, stream?: Stream): void {
    validateSize(newSize, 'newSize');
    const streamNative = streamArg(stream);
    afterAsyncCopies(streamNative);
    withReclaim(() => native.bufferResize(this.#native, newSize, streamNative), newSize);
    this.#stream = stream ?? defaultStream;
  }

  /**
   * Returns the memory to its resource now. A second free() is `ERR_RMM_DISPOSED`. When the
   * resource fails to take the memory back, free() throws and the buffer stays as it was (free()
   * may be tried again), except when the resource says the memory is not its own (a double or
   * foreign free, `ERR_RMM_LOGIC`): then the buffer is freed all the same.
   */
  free(): void {
    const handle = this.#native;
    if (handle === null) throw new RMMError('DeviceBuffer was freed and cannot be used', { code: 'ERR_RMM_DISPOSED' });
    const error = bufferFree(handle);
    this.#native = null;
    if (error !== undefined) throw error;
  }

  /**
   * Hands the buffer to another thread of this process without a copy: returns a token (send it with
   * `postMessage` or in `workerData`) that `DeviceBuffer.fromTransferred` claims there, once. This
   * object is then freed (`ERR_RMM_DISPOSED` on use). Work queued on the buffer's stream stays
   * ordered before the receiver's (the per-thread default stream, which differs between threads, is
   * synchronised first). Refused while an asynchronous copy runs (`ERR_RMM_LOGIC`), and for memory of
   * a resource that frees through JavaScript, such as CallbackMemoryResource (`ERR_RMM_WRONG_THREAD`),
   * also when the buffer is a view of it (`fromDLPack(toDLPack(buffer))`, at any depth).
   */
  transfer(): TransferredBufferToken {
    const handle = this.#native;
    if (handle === null) throw new RMMError('DeviceBuffer was freed and cannot be used', { code: 'ERR_RMM_DISPOSED' });
    const size = native.bufferSize(handle);
    const id = native.bufferTransfer(handle);
    this.#native = null;
    return makeToken<TransferredBufferToken>('rmmjs:buffer', id, { size });
  }

  /** Like free(), but does nothing for a freed buffer (so `using` after free() is fine). */
  [Symbol.dispose](): void {
    if (this.#native !== null) this.free();
  }

  toString(): string {
    return this.freed ? 'DeviceBuffer(freed)' : `DeviceBuffer(size=${this.size}, ptr=0x${this.ptr.toString(16)})`;
  }

  // An asynchronous copy: the buffer stays pinned (free() waits for the end, moves are refused)
  // and so does the stream; it is queued on its stream (stream-order.ts): it waits for the copies
  // it comes after, then for the stream's earlier work on a thread of the pool; then slices of a
  // few milliseconds each are copied on this thread, the event loop turning in between (a later
  // synchronous operation on the stream copies the rest at once). Host memory is touched only
  // inside those calls, so JavaScript that detaches or shrinks it meanwhile makes the next slice
  // fail (ERR_INVALID_ARG_VALUE naming `name`) instead of the copy using memory that is gone. (A
  // Node-API addon cannot hold an ArrayBuffer's memory against a detach.)
  #copyInSlices(
    host: HostBytes,
    nbytes: number,
    toHost: boolean,
    stream: StreamNative | undefined,
    name: string,
  ): Promise<void> {
    const copyStream = native.bufferBeginAsync(this.#native, stream); // ERR_RMM_DISPOSED when freed
    const handle = this.#native as BufferNative;
    let offset = 0;
    const copy = new OrderedCopy(
      copyStream,
      () => (offset += native.bufferCopySlice(handle, host, offset, nbytes, toHost, copyStream, name)) >= nbytes,
      () => {
        native.streamDispose(copyStream);
        native.bufferEndAsync(handle);
      },
    );
    return copy.run(() => native.bufferSynchronizeAsync(handle, copyStream));
  }

  #checkSourceFits(nbytes: number, name: string): void {
    const size = this.size;
    if (nbytes > size) {
      throw invalidArgValue(name, `is too large: ${nbytes} bytes do not fit in a buffer of ${size} bytes`);
    }
  }

  #checkTargetFits(nbytes: number): void {
    const size = this.size;
    if (nbytes < size) {
      throw invalidArgValue('target', `is too small: need space for ${size} bytes, got ${nbytes}`);
    }
  }
}

/** Whether `value` is a DeviceBuffer: a brand check (no getter runs; a Proxy of one is not one). */
export function isBuffer(value: unknown): value is DeviceBuffer {
  return isDeviceBuffer(value);
}

/** The native handle of a DeviceBuffer argument (null once freed), or `ERR_INVALID_ARG_TYPE` naming `name`. */
function bufferArg(buffer: unknown, name: string): BufferNative | null {
  if (!isDeviceBuffer(buffer)) throw invalidArgType(name, 'an instance of DeviceBuffer', buffer);
  return nativeOf(buffer);
}

/**
 * A DeviceBuffer over memory that native code lends (a memory handle, include/rmmjs/abi.h): the
 * buffer takes the memory out of `memory` and releases it when freed; it never deallocates it.
 * Copies of the buffer, and memory it grows into, come from the current resource of the memory's
 * device, on `options.stream`.
 */
export function adoptMemory(memory: MemoryHandle, options?: { stream?: Stream }): DeviceBuffer {
  const { stream } = validateOptions<{ stream?: Stream }>(options);
  return adoptMemoryOf(memory, stream);
}

/**
 * A memory handle holding the first `buffer.size` bytes of the buffer's memory for native code:
 * the memory stays valid until the holder releases it, also after `buffer.free()` or a resize
 * that moves the buffer (the buffer's free then leaves the memory to the holder).
 */
export function holdMemory(buffer: DeviceBuffer): MemoryHandle {
  return native.bufferHold(bufferArg(buffer, 'buffer'));
}

/**
 * Gives `buffer` a guard (a buffer guard handle, taken from `guard`): it is asked before the
 * buffer's memory is given back or moved, and may refuse (free() then throws its error).
 */
export function guardBuffer(buffer: DeviceBuffer, guard: BufferGuardHandle): void {
  native.bufferGuard(bufferArg(buffer, 'buffer'), guard);
}

// A transfer nobody claimed must not leak silently: the main thread frees what is left at exit.
if (isMainThread) process.once('exit', () => native.freeUnclaimedTransfers());
