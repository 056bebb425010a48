import { DeviceBuffer, type Stream } from '@rmmjs/core';
import { invalidArgType, outOfRange, streamArg, validateSize } from '@rmmjs/core/internal';

// A relative index of ArrayBuffer.prototype.slice: negative counts from the end; clamped.
function relativeIndex(value: unknown, name: string, length: number, absent: number): number {
  if (value === undefined) return absent;
  if (typeof value !== 'number') throw invalidArgType(name, 'of type number', value);
  const index = Number.isNaN(value) ? 0 : Math.trunc(value);
  return index < 0 ? Math.max(length + index, 0) : Math.min(index, length);
}

/**
 * Device memory in the shape node-rapids' `@rapidsai/cuda` takes from `setDefaultAllocator`
 * (its `Memory`): a numeric `ptr`, `byteLength`, `device` and `slice(start?, end?)` (a copy, as
 * `ArrayBuffer.prototype.slice`). It allocates a `DeviceBuffer` from the current device resource
 * and keeps it alive until `free()` (or garbage collection of both).
 */
export class RmmMemory implements Disposable {
  readonly #buffer: DeviceBuffer;
  // The buffer the next construction takes instead of allocating (slice's copy).
  static #adopting: DeviceBuffer | undefined;

  /** `byteLength` bytes from the current device resource, on `stream` (default `DEFAULT_STREAM`). */
  constructor(byteLength: number, stream?: Stream) {
    const adopted = RmmMemory.#adopting;
    if (adopted !== undefined) {
      RmmMemory.#adopting = undefined;
      this.#buffer = adopted;
      return;
    }
    validateSize(byteLength, 'byteLength');
    streamArg(stream);
    this.#buffer = new DeviceBuffer({ size: byteLength, stream });
  }

  /** The device address as a number (`buffer.ptr` is the same as a bigint). */
  get ptr(): number {
    const ptr = this.#buffer.ptr;
    if (ptr > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw outOfRange('ptr', 'a safe integer to be given as a number (use buffer.ptr)', ptr);
    }
    return Number(ptr);
  }

  /** The size in bytes. */
  get byteLength(): number {
    return this.#buffer.size;
  }

  /** The device the memory is on. */
  get device(): number {
    return this.#buffer.device;
  }

  /** The `DeviceBuffer` that owns the memory. */
  get buffer(): DeviceBuffer {
    return this.#buffer;
  }

  /** True after `free()`. */
  get freed(): boolean {
    return this.#buffer.freed;
  }

  /** `'RmmMemory'`, so `Object.prototype.toString` gives `[object RmmMemory]`. */
  get [Symbol.toStringTag](): string {
    return 'RmmMemory';
  }

  /** A copy of bytes [start, end) in new memory (same resource and stream); indices as `ArrayBuffer.prototype.slice`. */
  slice(start?: number, end?: number): RmmMemory {
    const length = this.#buffer.size;
    const from = relativeIndex(start, 'start', length, 0);
    const to = relativeIndex(end, 'end', length, length);
    const stream = this.#buffer.stream;
    // From this memory's own resource, whatever the current one is now.
    const buffer = new DeviceBuffer({ size: Math.max(to - from, 0), stream, mr: this.#buffer.mr });
    RmmMemory.#adopting = buffer;
    const copy = new RmmMemory(buffer.size);
    if (copy.byteLength > 0) {
      const region = {
        data: [this.#buffer.ptr + BigInt(from), false],
        shape: [copy.byteLength],
        typestr: '|u1',
        version: 3,
      };
      try {
        copy.#buffer.copyFromDevice({ cudaArrayInterface: region }, stream);
      } catch (error) {
        copy.free();
        throw error;
      }
    }
    return copy;
  }

  /** Frees the memory now (a second `free()` is `ERR_RMM_DISPOSED`). */
  free(): void {
    this.#buffer.free();
  }

  /** Like `free()`, but does nothing once freed. */
  [Symbol.dispose](): void {
    this.#buffer[Symbol.dispose]();
  }
}

/**
 * `(byteLength, stream?) => RmmMemory`: the function to hand to `@rapidsai/cuda`'s
 * `setDefaultAllocator` (or any library that takes memory with a numeric `ptr` and `byteLength`).
 */
export function rmmMemoryAllocator(byteLength: number, stream?: Stream): RmmMemory {
  return new RmmMemory(byteLength, stream);
}
