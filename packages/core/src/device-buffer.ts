import { DeviceMemoryResource, resourceHandle, wrapResource } from './device-memory-resource.js';
import { invalidArgType, invalidArgValue, RMMError } from './errors.js';
import { native, type BufferNative } from './native.js';
import { DEFAULT_STREAM, Stream, streamArg } from './stream.js';
import { validateInteger, validateOptions, validateSize } from './validate.js';

/** Host bytes: any ArrayBufferView (Uint8Array, Buffer, DataView, ...) or an ArrayBuffer. */
export type HostBytes = ArrayBufferView | ArrayBuffer;

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
  data: [bigint, boolean];
  shape: [number];
  strides: null;
  typestr: '|u1';
  version: 3;
  stream?: bigint;
}

/** Anything that exposes device memory through the CUDA Array Interface. */
export interface CudaArrayLike {
  cudaArrayInterface?: unknown;
  __cuda_array_interface__?: unknown;
}

function byteLength(bytes: unknown, name: string): number {
  if (ArrayBuffer.isView(bytes) || bytes instanceof ArrayBuffer) return bytes.byteLength;
  throw invalidArgType(name, 'an ArrayBufferView or ArrayBuffer', bytes);
}

// The pointer and byte size of a one-dimensional contiguous CUDA array.
function deviceSource(src: unknown): { ptr: bigint; nbytes: number } {
  if (src instanceof DeviceBuffer) return { ptr: src.ptr, nbytes: src.size };
  const cai = (src as CudaArrayLike | null)?.cudaArrayInterface ?? (src as CudaArrayLike | null)?.__cuda_array_interface__;
  if (typeof cai !== 'object' || cai === null) {
    throw invalidArgType('src', 'a DeviceBuffer or an object with cudaArrayInterface', src);
  }
  const { data, shape, strides, typestr } = cai as Record<string, unknown>;
  const itemsize = typeof typestr === 'string' ? Number(typestr.slice(2)) : NaN;
  if (!Array.isArray(data) || !Array.isArray(shape) || !Number.isInteger(itemsize) || itemsize <= 0) {
    throw invalidArgValue('src', 'has an invalid cudaArrayInterface (needs data, shape and typestr)');
  }
  if (shape.length > 1) {
    throw invalidArgValue('src', `must be a 1-D contiguous array, got a ${shape.length}-D array`);
  }
  if (strides != null && (!Array.isArray(strides) || strides[0] !== itemsize)) {
    throw invalidArgValue('src', 'must be a 1-D contiguous array, got a non-contiguous array');
  }
  const ptr = typeof data[0] === 'number' ? BigInt(data[0]) : data[0];
  if (typeof ptr !== 'bigint') throw invalidArgValue('src', 'has an invalid data pointer');
  return { ptr, nbytes: (shape.length === 0 ? 1 : Number(shape[0])) * itemsize };
}

// Hot-path functions read once (a property load on the addon's exports costs a few ns).
const { bufferCreate, bufferFree } = native;

let adopting: { attach: (target: DeviceBuffer) => BufferNative; stream: Stream } | undefined;

/**
 * Untyped device memory from a resource, as RMM's `DeviceBuffer`: it keeps its resource and
 * stream alive and frees `capacity()` bytes on its stream. Free it with `free()` or `using`;
 * garbage collection is only the fallback.
 */
export class DeviceBuffer implements Disposable {
  // The native handle; null once freed (native calls then throw ERR_RMM_DISPOSED).
  #native: BufferNative | null;
  #stream: Stream;

  constructor(options?: DeviceBufferOptions) {
    if (adopting !== undefined) {
      this.#stream = adopting.stream;
      this.#native = adopting.attach(this);
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
    this.#stream = stream ?? DEFAULT_STREAM;
    this.#native = bufferCreate(this, mrHandle, nbytes, streamNative, data);
  }

  // A DeviceBuffer around a native buffer that attach(target) creates.
  static #adopt(attach: (target: DeviceBuffer) => BufferNative, stream: Stream): DeviceBuffer {
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

  /** Like toDevice, without blocking the event loop during the copy. */
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

  /** The size in bytes. */
  get size(): number {
    return native.bufferSize(this.#native);
  }

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

  /** The stream the buffer allocates and frees on. */
  get stream(): Stream {
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

  get cudaArrayInterface(): CudaArrayInterface {
    const cai: CudaArrayInterface = {
      data: [this.ptr, false],
      shape: [this.size],
      strides: null,
      typestr: '|u1',
      version: 3,
    };
    const handle = this.#stream.handle;
    if (handle !== 0n) cai.stream = handle;
    return cai;
  }

  /** Bytes allocated (>= size). */
  capacity(): number {
    return native.bufferCapacity(this.#native);
  }

  /** A deep copy on the same resource and stream. */
  copy(): DeviceBuffer {
    const source = this.#native;
    return DeviceBuffer.#adopt((target) => native.bufferCopy(source, target), this.#stream);
  }

  /** Copies a DeviceBuffer or a 1-D contiguous CUDA array into the start of this buffer. */
  copyFromDevice(src: DeviceBuffer | CudaArrayLike, stream?: Stream): void {
    const streamNative = streamArg(stream);
    const { ptr, nbytes } = deviceSource(src);
    this.#checkSourceFits(nbytes, 'src');
    native.bufferCopyFromDevice(this.#native, ptr, nbytes, streamNative);
  }

  /** Copies host bytes into the start of this buffer. */
  copyFromHost(bytes: HostBytes, stream?: Stream): void {
    const streamNative = streamArg(stream);
    this.#checkSourceFits(byteLength(bytes, 'bytes'), 'bytes');
    native.bufferCopyFromHost(this.#native, bytes, streamNative);
  }

  /** Copies the buffer to `target` (returned), or to a new Uint8Array. */
  copyToHost(target?: undefined, stream?: Stream): Uint8Array;
  copyToHost<T extends HostBytes>(target: T, stream?: Stream): T;
  copyToHost<T extends HostBytes>(target?: T, stream?: Stream): T {
    const streamNative = streamArg(stream);
    const out = (target ?? new Uint8Array(this.size)) as T;
    this.#checkTargetFits(byteLength(out, 'target'));
    native.bufferCopyToHost(this.#native, out, streamNative);
    return out;
  }

  /** The contents as a new Uint8Array. */
  toBytes(stream?: Stream): Uint8Array {
    return this.copyToHost(undefined, stream);
  }

  /** copyToHost without blocking the event loop. */
  copyToHostAsync(target?: undefined, stream?: Stream): Promise<Uint8Array>;
  copyToHostAsync<T extends HostBytes>(target: T, stream?: Stream): Promise<T>;
  async copyToHostAsync<T extends HostBytes>(target?: T, stream?: Stream): Promise<T> {
    const streamNative = streamArg(stream);
    const out = (target ?? new Uint8Array(this.size)) as T;
    this.#checkTargetFits(byteLength(out, 'target'));
    return native.bufferCopyToHostAsync(this, this.#native, out, streamNative);
  }

  /** copyFromHost without blocking the event loop. */
  async copyFromHostAsync(bytes: HostBytes, stream?: Stream): Promise<void> {
    const streamNative = streamArg(stream);
    this.#checkSourceFits(byteLength(bytes, 'bytes'), 'bytes');
    await native.bufferCopyFromHostAsync(this, this.#native, bytes, streamNative);
  }

  /** Prefetches managed memory to `device` (default: the current one; -1: the host). */
  prefetch(device?: number, stream?: Stream): void {
    const target = device === undefined ? native.getDevice() : validateInteger(device, 'device', -1);
    native.bufferPrefetch(this.#native, target, streamArg(stream ?? this.#stream));
  }

  /** Grows the capacity to at least `newCapacity` (contents kept); adopts `stream`. */
  reserve(newCapacity: number, stream?: Stream): void {
    validateSize(newCapacity, 'newCapacity');
    native.bufferReserve(this.#native, newCapacity, streamArg(stream));
    this.#stream = stream ?? DEFAULT_STREAM;
  }

  /** Sets the size; within the capacity the pointer stays, beyond it the memory moves. */
  resize(newSize: number, stream?: Stream): void {
    validateSize(newSize, 'newSize');
    native.bufferResize(this.#native, newSize, streamArg(stream));
    this.#stream = stream ?? DEFAULT_STREAM;
  }

  /** Returns the memory to its resource now. A second free() is `ERR_RMM_DISPOSED`. */
  free(): void {
    const handle = this.#native;
    if (handle === null) throw new RMMError('DeviceBuffer was freed and cannot be used', { code: 'ERR_RMM_DISPOSED' });
    this.#native = null;
    bufferFree(this, handle);
  }

  /** Like free(), but does nothing for a freed buffer (so `using` after free() is fine). */
  [Symbol.dispose](): void {
    if (this.#native !== null) this.free();
  }

  toString(): string {
    return this.freed ? 'DeviceBuffer(freed)' : `DeviceBuffer(size=${this.size}, ptr=0x${this.ptr.toString(16)})`;
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

