import { DeviceMemoryResource } from './device-memory-resource.js';
import { Stream } from './stream.js';
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
/**
 * Untyped device memory from a resource, as RMM's `DeviceBuffer`: it keeps its resource and
 * stream alive and frees `capacity()` bytes on its stream. Free it with `free()` or `using`;
 * garbage collection is only the fallback.
 */
export declare class DeviceBuffer implements Disposable {
    #private;
    constructor(options?: DeviceBufferOptions);
    /** A new buffer holding a copy of `bytes`. */
    static toDevice(bytes: HostBytes, stream?: Stream): DeviceBuffer;
    /** Like toDevice, without blocking the event loop during the copy. */
    static toDeviceAsync(bytes: HostBytes, stream?: Stream): Promise<DeviceBuffer>;
    /** The size in bytes. */
    get size(): number;
    get nbytes(): number;
    /** The device address (0n for an empty buffer). */
    get ptr(): bigint;
    /** The resource the memory came from. */
    get mr(): DeviceMemoryResource;
    /** The stream the buffer allocates and frees on. */
    get stream(): Stream;
    /** The device the memory is on. */
    get device(): number;
    /** True after free(). */
    get freed(): boolean;
    get cudaArrayInterface(): CudaArrayInterface;
    /** Bytes allocated (>= size). */
    capacity(): number;
    /** A deep copy on the same resource and stream. */
    copy(): DeviceBuffer;
    /** Copies a DeviceBuffer or a 1-D contiguous CUDA array into the start of this buffer. */
    copyFromDevice(src: DeviceBuffer | CudaArrayLike, stream?: Stream): void;
    /** Copies host bytes into the start of this buffer. */
    copyFromHost(bytes: HostBytes, stream?: Stream): void;
    /** Copies the buffer to `target` (returned), or to a new Uint8Array. */
    copyToHost<T extends HostBytes = Uint8Array>(target?: T, stream?: Stream): T;
    /** The contents as a new Uint8Array. */
    toBytes(stream?: Stream): Uint8Array;
    /** copyToHost without blocking the event loop. */
    copyToHostAsync<T extends HostBytes = Uint8Array>(target?: T, stream?: Stream): Promise<T>;
    /** copyFromHost without blocking the event loop. */
    copyFromHostAsync(bytes: HostBytes, stream?: Stream): Promise<void>;
    /** Prefetches managed memory to `device` (default: the current one; -1: the host). */
    prefetch(device?: number, stream?: Stream): void;
    /** Grows the capacity to at least `newCapacity` (contents kept); adopts `stream`. */
    reserve(newCapacity: number, stream?: Stream): void;
    /** Sets the size; within the capacity the pointer stays, beyond it the memory moves. */
    resize(newSize: number, stream?: Stream): void;
    /** Returns the memory to its resource now. A second free() is `ERR_RMM_DISPOSED`. */
    free(): void;
    /** Like free(), but does nothing for a freed buffer (so `using` after free() is fine). */
    [Symbol.dispose](): void;
    toString(): string;
}
