import type { CudaArrayInterface, DeviceBuffer } from '@rmmjs/core';
import { outOfRange, validateSize } from '@rmmjs/core/internal';
import { INTERNAL, Releasable, type Release } from './releasable.js';

/** @internal */
export interface MemoryPointerInit {
  ptr: bigint;
  size: number;
  device: number;
  /** The DeviceBuffer that owns device memory (memalloc), else null. */
  buffer: DeviceBuffer | null;
}

/**
 * Device-accessible memory, as Numba's `MemoryPointer`: `ptr` (the device address), `size` and
 * `device`. `memalloc` returns one that keeps its `DeviceBuffer` alive until freed; `view()`
 * makes one that is part of another and keeps that alive.
 */
export class MemoryPointer extends Releasable {
  readonly #init: MemoryPointerInit;
  readonly #owner: MemoryPointer | null;
  readonly #offset: number;

  /** @internal */
  constructor(internal: typeof INTERNAL, init: MemoryPointerInit, release: Release | null, owner?: MemoryPointer) {
    super(internal, release);
    this.#init = init;
    this.#owner = owner?.owner ?? null;
    this.#offset = owner === undefined ? 0 : Number(init.ptr - this.#owner!.#init.ptr);
  }

  /** The device address (`0n` for 0 bytes). */
  get ptr(): bigint {
    this.checkLive();
    return this.#init.ptr;
  }

  /** The size in bytes. */
  get size(): number {
    this.checkLive();
    return this.#init.size;
  }

  /** The device the memory is on. */
  get device(): number {
    return this.#init.device;
  }

  /** The allocation this is part of (itself unless it is a view). */
  get owner(): MemoryPointer {
    return this.#owner ?? this;
  }

  /** Where it starts in `owner`, in bytes. */
  get offset(): number {
    return this.#offset;
  }

  /** The `DeviceBuffer` that owns the memory (of `owner`), for device memory from `memalloc`; else null. */
  get buffer(): DeviceBuffer | null {
    return this.owner.#init.buffer;
  }

  /** True once the memory (of `owner`, for a view) was freed. */
  override get freed(): boolean {
    return this.#owner === null ? super.freed : this.#owner.freed;
  }

  /** The memory as a CUDA Array Interface (version 3) of bytes, with no stream. */
  get cudaArrayInterface(): CudaArrayInterface {
    return { data: [this.ptr, false], shape: [this.size], strides: null, typestr: '|u1', version: 3 };
  }

  /**
   * Bytes [start, stop) of this memory (stop defaults to the end), as Numba's `view`: it keeps
   * the memory alive, owns none, and is unusable once the memory is freed.
   */
  view(start: number, stop?: number): MemoryPointer {
    const size = this.size;
    validateSize(start, 'start');
    const end = stop === undefined ? size : validateSize(stop, 'stop');
    if (end > size) throw outOfRange('stop', `<= ${size} (the size)`, end);
    if (start > end) throw outOfRange('start', `<= ${end} (stop)`, start);
    const ptr = this.#init.ptr === 0n ? 0n : this.#init.ptr + BigInt(start);
    return new MemoryPointer(INTERNAL, { ...this.#init, ptr, size: end - start, buffer: null }, null, this);
  }
}
