import { resourceHandle, wrapResource } from './device-memory-resource.js';
import { invalidArgType, invalidArgValue } from './errors.js';
import { native } from './native.js';
import { DEFAULT_STREAM, streamArg } from './stream.js';
import { validateInteger, validateOptions, validateSize } from './validate.js';
function byteLength(bytes, name) {
    if (ArrayBuffer.isView(bytes) || bytes instanceof ArrayBuffer)
        return bytes.byteLength;
    throw invalidArgType(name, 'an ArrayBufferView or ArrayBuffer', bytes);
}
// The pointer and byte size of a one-dimensional contiguous CUDA array.
function deviceSource(src) {
    if (src instanceof DeviceBuffer)
        return { ptr: src.ptr, nbytes: src.size };
    const cai = src?.cudaArrayInterface ?? src?.__cuda_array_interface__;
    if (typeof cai !== 'object' || cai === null) {
        throw invalidArgType('src', 'a DeviceBuffer or an object with cudaArrayInterface', src);
    }
    const { data, shape, strides, typestr } = cai;
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
    if (typeof ptr !== 'bigint')
        throw invalidArgValue('src', 'has an invalid data pointer');
    return { ptr, nbytes: (shape.length === 0 ? 1 : Number(shape[0])) * itemsize };
}
let adopting;
/**
 * Untyped device memory from a resource, as RMM's `DeviceBuffer`: it keeps its resource and
 * stream alive and frees `capacity()` bytes on its stream. Free it with `free()` or `using`;
 * garbage collection is only the fallback.
 */
export class DeviceBuffer {
    #native;
    #stream;
    constructor(options) {
        if (adopting !== undefined) {
            this.#native = adopting.native;
            this.#stream = adopting.stream;
            return;
        }
        const { size, data, stream, mr } = validateOptions(options);
        let nbytes;
        if (data === undefined) {
            nbytes = size === undefined ? 0 : validateSize(size, 'options.size');
        }
        else {
            const length = byteLength(data, 'options.data');
            nbytes = size === undefined ? length : validateSize(size, 'options.size');
            if (nbytes > length) {
                throw invalidArgValue('options.data', `has ${length} bytes, fewer than options.size (${nbytes})`);
            }
        }
        const streamNative = streamArg(stream, 'options.stream');
        const mrHandle = mr === undefined ? undefined : resourceHandle(mr, 'options.mr');
        this.#native = native.bufferCreate(mrHandle, nbytes, streamNative, data);
        this.#stream = stream ?? DEFAULT_STREAM;
    }
    static #adopt(buffer, stream) {
        adopting = { native: buffer, stream };
        try {
            return new DeviceBuffer();
        }
        finally {
            adopting = undefined;
        }
    }
    /** A new buffer holding a copy of `bytes`. */
    static toDevice(bytes, stream) {
        byteLength(bytes, 'bytes');
        return new DeviceBuffer({ data: bytes, stream });
    }
    /** Like toDevice, without blocking the event loop during the copy. */
    static async toDeviceAsync(bytes, stream) {
        const buffer = new DeviceBuffer({ size: byteLength(bytes, 'bytes'), stream });
        try {
            await buffer.copyFromHostAsync(bytes, stream);
        }
        catch (error) {
            buffer.free();
            throw error;
        }
        return buffer;
    }
    /** The size in bytes. */
    get size() {
        return native.bufferSize(this.#native);
    }
    get nbytes() {
        return native.bufferSize(this.#native);
    }
    /** The device address (0n for an empty buffer). */
    get ptr() {
        return native.bufferPtr(this.#native);
    }
    /** The resource the memory came from. */
    get mr() {
        return wrapResource(native.bufferResource(this.#native));
    }
    /** The stream the buffer allocates and frees on. */
    get stream() {
        return this.#stream;
    }
    /** The device the memory is on. */
    get device() {
        return native.bufferDevice(this.#native);
    }
    /** True after free(). */
    get freed() {
        return native.bufferIsFreed(this.#native);
    }
    get cudaArrayInterface() {
        const cai = {
            data: [this.ptr, false],
            shape: [this.size],
            strides: null,
            typestr: '|u1',
            version: 3,
        };
        const handle = this.#stream.handle;
        if (handle !== 0n)
            cai.stream = handle;
        return cai;
    }
    /** Bytes allocated (>= size). */
    capacity() {
        return native.bufferCapacity(this.#native);
    }
    /** A deep copy on the same resource and stream. */
    copy() {
        return DeviceBuffer.#adopt(native.bufferCopy(this.#native), this.#stream);
    }
    /** Copies a DeviceBuffer or a 1-D contiguous CUDA array into the start of this buffer. */
    copyFromDevice(src, stream) {
        const streamNative = streamArg(stream);
        const { ptr, nbytes } = deviceSource(src);
        this.#checkSourceFits(nbytes, 'src');
        native.bufferCopyFromDevice(this.#native, ptr, nbytes, streamNative);
    }
    /** Copies host bytes into the start of this buffer. */
    copyFromHost(bytes, stream) {
        const streamNative = streamArg(stream);
        this.#checkSourceFits(byteLength(bytes, 'bytes'), 'bytes');
        native.bufferCopyFromHost(this.#native, bytes, streamNative);
    }
    /** Copies the buffer to `target` (returned), or to a new Uint8Array. */
    copyToHost(target, stream) {
        const streamNative = streamArg(stream);
        const out = (target ?? new Uint8Array(this.size));
        this.#checkTargetFits(byteLength(out, 'target'));
        native.bufferCopyToHost(this.#native, out, streamNative);
        return out;
    }
    /** The contents as a new Uint8Array. */
    toBytes(stream) {
        return this.copyToHost(undefined, stream);
    }
    /** copyToHost without blocking the event loop. */
    async copyToHostAsync(target, stream) {
        const streamNative = streamArg(stream);
        const out = (target ?? new Uint8Array(this.size));
        this.#checkTargetFits(byteLength(out, 'target'));
        return native.bufferCopyToHostAsync(this.#native, out, streamNative);
    }
    /** copyFromHost without blocking the event loop. */
    async copyFromHostAsync(bytes, stream) {
        const streamNative = streamArg(stream);
        this.#checkSourceFits(byteLength(bytes, 'bytes'), 'bytes');
        await native.bufferCopyFromHostAsync(this.#native, bytes, streamNative);
    }
    /** Prefetches managed memory to `device` (default: the current one; -1: the host). */
    prefetch(device, stream) {
        const target = device === undefined ? native.getDevice() : validateInteger(device, 'device', -1);
        native.bufferPrefetch(this.#native, target, streamArg(stream ?? this.#stream));
    }
    /** Grows the capacity to at least `newCapacity` (contents kept); adopts `stream`. */
    reserve(newCapacity, stream) {
        validateSize(newCapacity, 'newCapacity');
        native.bufferReserve(this.#native, newCapacity, streamArg(stream));
        this.#stream = stream ?? DEFAULT_STREAM;
    }
    /** Sets the size; within the capacity the pointer stays, beyond it the memory moves. */
    resize(newSize, stream) {
        validateSize(newSize, 'newSize');
        native.bufferResize(this.#native, newSize, streamArg(stream));
        this.#stream = stream ?? DEFAULT_STREAM;
    }
    /** Returns the memory to its resource now. A second free() is `ERR_RMM_DISPOSED`. */
    free() {
        native.bufferFree(this.#native, true);
    }
    /** Like free(), but does nothing for a freed buffer (so `using` after free() is fine). */
    [Symbol.dispose]() {
        native.bufferFree(this.#native, false);
    }
    toString() {
        return this.freed ? 'DeviceBuffer(freed)' : `DeviceBuffer(size=${this.size}, ptr=0x${this.ptr.toString(16)})`;
    }
    #checkSourceFits(nbytes, name) {
        const size = this.size;
        if (nbytes > size) {
            throw invalidArgValue(name, `is too large: ${nbytes} bytes do not fit in a buffer of ${size} bytes`);
        }
    }
    #checkTargetFits(nbytes) {
        const size = this.size;
        if (nbytes < size) {
            throw invalidArgValue('target', `is too small: need space for ${size} bytes, got ${nbytes}`);
        }
    }
}
//# sourceMappingURL=device-buffer.js.map