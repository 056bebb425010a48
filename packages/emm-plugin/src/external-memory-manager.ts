import { types } from 'node:util';
import { CudaMemoryResource, DeviceBuffer, RMMError, cuda, getPerDeviceResource } from '@rmmjs/core';
import {
  invalidArgType,
  invalidArgValue,
  native,
  outOfRange,
  runInScope,
  validateBoolean,
  validateFunction,
  validateInteger,
  validateOptions,
  validateSize,
  WeakReference,
} from '@rmmjs/core/internal';
import { exportIpcHandle, type IpcHandle } from '@rmmjs/interop';
import { ManagedMemory } from './managed-memory.js';
import { MappedMemory, type HostInit } from './mapped-memory.js';
import { MemoryPointer } from './memory-pointer.js';
import { HostAllocFlags, HostRegisterFlags, addon, type HostMemoryHandle } from './native.js';
import { PinnedMemory } from './pinned-memory.js';
import { INTERNAL, type Releasable, type Release } from './releasable.js';

/** Options of `new RMMExternalMemoryManager()`. */
export interface RMMExternalMemoryManagerOptions {
  /** The device it allocates on (default: the current device when it is constructed). */
  device?: number;
}

/** Options of `memhostalloc`: cuMemHostAlloc's flags. */
export interface MemHostAllocOptions {
  /** Map it into the device's address space: a `MappedMemory` (default: a `PinnedMemory`). */
  mapped?: boolean;
  /** Page-locked for every CUDA context, not only the device's. Default false. */
  portable?: boolean;
  /** Write-combined: faster for the device to read, slow for the host to read. Default false. */
  wc?: boolean;
}

/** Options of `mempin`. */
export interface MemPinOptions {
  /** Map it into the device's address space: a `MappedMemory` (default: a `PinnedMemory`). */
  mapped?: boolean;
}

/** Numba's `MemoryInfo`: bytes free and in total on the device. */
export interface MemoryInfo {
  /** Bytes free on the device. */
  free: number;
  /** The device's memory in all, in bytes. */
  total: number;
}

/** What mempin keeps until the range is unpinned: the handle and the memory it pins. */
interface Pin {
  handle: HostMemoryHandle;
  owner: object;
}

const LOG_ERROR = 4;

/** What the collector leaves to do for memory dropped without free(). */
interface Collected {
  /** The manager's table of live memory, to forget it in. */
  live: Map<number, WeakReference<Releasable>>;
  id: number;
  /** A pin: unpinned here, its owner held until then (the other kinds free themselves). */
  pin?: Pin;
}

// One for every manager, so that it outlives them all: a pin dropped together with its manager
// is still unpinned before its owner's memory can go.
const collected = new FinalizationRegistry<Collected>(({ live, id, pin }) => {
  live.delete(id);
  if (pin === undefined) return;
  try {
    addon.release(pin.handle);
  } catch (error) {
    native.log(LOG_ERROR, `RMMExternalMemoryManager: unpinning memory that was collected: ${(error as Error).message}`);
  }
});

// The bytes of owner: a Uint8Array over a SharedArrayBuffer, or over the bytes of a view of one.
// Memory of an ArrayBuffer can leave it (postMessage or structuredClone transfers it, transfer()
// and native code detach it) and be freed with another thread's heap while the device still uses
// the pinned range; Node-API cannot hold it in place, so only a SharedArrayBuffer is pinned (its
// memory stays while this manager holds it, whichever threads share it).
function bytesOf(owner: unknown): Uint8Array {
  const isBuffer = types.isArrayBuffer(owner) || types.isSharedArrayBuffer(owner);
  if (!isBuffer && !ArrayBuffer.isView(owner)) {
    throw invalidArgType('owner', 'a SharedArrayBuffer or a view of one', owner);
  }
  let view: Uint8Array;
  try {
    view = isBuffer ? new Uint8Array(owner) : new Uint8Array(owner.buffer, owner.byteOffset, owner.byteLength);
  } catch {
    throw invalidArgValue('owner', 'is detached: it has no memory to pin'); // the only way these throw
  }
  if (!types.isSharedArrayBuffer(view.buffer)) {
    throw invalidArgValue(
      'owner',
      'is an ArrayBuffer or a view of one, whose memory can be transferred to another thread and freed while ' +
        'it is pinned: pin a SharedArrayBuffer (or a view of one), or take page-locked memory from memhostalloc',
    );
  }
  if ((view.buffer as { growable?: boolean }).growable === true) {
    throw invalidArgValue('owner', 'is growable: its memory may move while it is pinned');
  }
  return view;
}

// Where pointer is in view: a byte offset (a number), or an address inside it (a bigint, as Numba's).
function offsetIn(view: Uint8Array, pointer: unknown): number {
  if (pointer === undefined) return 0;
  if (typeof pointer === 'number') {
    validateSize(pointer, 'pointer');
    if (pointer > view.byteLength) throw outOfRange('pointer', `<= ${view.byteLength} (owner's bytes)`, pointer);
    return pointer;
  }
  if (typeof pointer !== 'bigint') throw invalidArgType('pointer', 'of type bigint or number', pointer);
  const start = addon.address(view);
  if (pointer < start || pointer > start + BigInt(view.byteLength)) {
    const end = start + BigInt(view.byteLength);
    throw outOfRange('pointer', `an address within owner (0x${start.toString(16)} to 0x${end.toString(16)})`, pointer);
  }
  return Number(pointer - start);
}

// A Release over an action: released once the action has run (or been queued) without throwing.
function releasing(action: () => void): Release {
  let done = false;
  return {
    release: () => {
      action();
      done = true;
    },
    released: () => done,
  };
}

/**
 * RMM's `RMMNumbaManager` for JavaScript: Numba's External Memory Management (EMM) plugin
 * interface, version 1, as the contract a JavaScript GPU array library implements against.
 * Device memory (`memalloc`) comes from the current device resource of the manager's device;
 * page-locked host memory (`memhostalloc`, `mempin`) and managed memory (`memallocmanaged`) come
 * from the driver, as Numba's `HostOnlyCUDAMemoryManager` (RMM's manager's base) takes them.
 */
export class RMMExternalMemoryManager {
  readonly #device: number;
  // What it handed out and has not seen freed, for reset(): id -> memory, held weakly (and not as a
  // WeakRef does, to the end of the job: memory dropped in a synchronous loop stays garbage, which
  // core reclaims before an allocation reports out of memory).
  readonly #live = new Map<number, WeakReference<Releasable>>();
  #nextId = 0;
  #deferScopes = 0;
  #pending: Array<() => void> = [];
  #resetting = false;

  constructor(options?: RMMExternalMemoryManagerOptions) {
    const { device } = validateOptions<RMMExternalMemoryManagerOptions>(options);
    const devices = Math.max(cuda.getDeviceCount(), 1); // host mode: device 0
    this.#device = device === undefined ? cuda.getDevice() : validateInteger(device, 'options.device', 0, devices - 1);
  }

  /** The device it allocates on. */
  get device(): number {
    return this.#device;
  }

  /** The version of the EMM interface it implements: 1. */
  get interfaceVersion(): number {
    return 1;
  }

  /**
   * Prepares the device for allocations: its resource in the registry (the default one if none
   * was set). May be called any number of times; it changes nothing that was handed out.
   */
  initialize(): void {
    getPerDeviceResource(this.#device);
  }

  /**
   * `size` bytes of device memory from the current device resource of the manager's device (on
   * the default stream), kept alive by the returned `MemoryPointer` until it is freed.
   */
  memalloc(size: number): MemoryPointer {
    validateSize(size, 'size');
    const buffer = new DeviceBuffer({ size, mr: getPerDeviceResource(this.#device) });
    const release: Release = { release: () => buffer.free(), released: () => buffer.freed };
    const init = { ptr: buffer.ptr, size, device: this.#device, buffer };
    return this.#handOut(release, (tracked) => new MemoryPointer(INTERNAL, init, tracked));
  }

  /** `size` bytes of managed memory (cuMemAllocManaged), attached to every stream unless `attachGlobal` is false. */
  memallocmanaged(size: number, attachGlobal = true): ManagedMemory {
    validateSize(size, 'size');
    validateBoolean(attachGlobal, 'attachGlobal');
    const [handle, ptr] = addon.managedAlloc(this.#device, size, attachGlobal);
    const release = releasing(() => this.#whenCleanupAllowed(() => addon.release(handle)));
    const init = { ptr, size, device: this.#device, buffer: null };
    return this.#handOut(release, (tracked) => new ManagedMemory(INTERNAL, init, tracked, attachGlobal));
  }

  /**
   * `size` bytes of page-locked host memory (cuMemHostAlloc); `bytes` reads and writes it from
   * JavaScript. Mapped: a `MappedMemory` whose `ptr` kernels use; else a `PinnedMemory`.
   */
  memhostalloc(size: number, options?: MemHostAllocOptions): PinnedMemory | MappedMemory {
    validateSize(size, 'size');
    const { mapped = false, portable = false, wc = false } = validateOptions<MemHostAllocOptions>(options);
    validateBoolean(mapped, 'options.mapped');
    validateBoolean(portable, 'options.portable');
    validateBoolean(wc, 'options.wc');
    const flags =
      (mapped ? HostAllocFlags.deviceMap : 0) |
      (portable ? HostAllocFlags.portable : 0) |
      (wc ? HostAllocFlags.writeCombined : 0);
    const [handle, arrayBuffer, hostPtr, devicePtr] = addon.hostAlloc(this.#device, size, flags);
    // JavaScript loses the bytes at once; the memory itself may wait for deferCleanup to end.
    const release = releasing(() => {
      addon.detach(handle, arrayBuffer);
      this.#whenCleanupAllowed(() => addon.release(handle));
    });
    const host: HostInit = { hostPtr, bytes: new Uint8Array(arrayBuffer), hostOwner: null };
    return this.#handOut(release, (tracked) => this.#hostMemory(mapped, size, devicePtr, tracked, host));
  }

  /**
   * Page-locks `size` bytes of `owner` (a SharedArrayBuffer or a view of one; not a growable one)
   * from `pointer` (a byte offset, or an address inside owner as a bigint; default 0) in place
   * (cuMemHostRegister), until the returned memory is freed or collected; `owner` is kept alive
   * until then. `size` defaults to the rest of owner. An ArrayBuffer, or a view of one, is
   * `ERR_INVALID_ARG_VALUE`: its memory could be transferred to a worker and freed with it while
   * pinned (use a SharedArrayBuffer, or memhostalloc).
   */
  mempin(
    owner: object,
    pointer?: bigint | number,
    size?: number,
    options?: MemPinOptions,
  ): PinnedMemory | MappedMemory {
    const view = bytesOf(owner);
    const offset = offsetIn(view, pointer);
    const length = size === undefined ? view.byteLength - offset : validateSize(size, 'size');
    if (length > view.byteLength - offset) {
      throw outOfRange('size', `<= ${view.byteLength - offset} (owner's bytes from pointer)`, length);
    }
    const { mapped = false } = validateOptions<MemPinOptions>(options);
    validateBoolean(mapped, 'options.mapped');
    const flags = mapped ? HostRegisterFlags.deviceMap : 0;
    const [handle, hostPtr, devicePtr] = addon.hostRegister(this.#device, view, offset, length, flags);
    const pin: Pin = { handle, owner };
    // The held release keeps `pin`, and so the owner's memory, until it has run.
    const release = releasing(() => this.#whenCleanupAllowed(() => addon.release(pin.handle)));
    const bytes = new Uint8Array(view.buffer, view.byteOffset + offset, length);
    const host: HostInit = { hostPtr, bytes, hostOwner: owner };
    return this.#handOut(release, (tracked) => this.#hostMemory(mapped, length, devicePtr, tracked, host), pin);
  }

  /**
   * `{ free, total }` bytes of the device, where the current device resource of the manager's
   * device can tell: a `CudaMemoryResource`, which takes memory straight from the device. Any
   * other resource (a pool, a limit, host memory) cannot, and this throws `RMMError`
   * (`ERR_RMM_LOGIC`), as RMM's manager does.
   */
  getMemoryInfo(): MemoryInfo {
    const mr = getPerDeviceResource(this.#device);
    if (!(mr instanceof CudaMemoryResource)) {
      throw new RMMError(
        `getMemoryInfo: the resource of device ${this.#device} (${mr.constructor.name}) cannot tell how much of the ` +
          'device memory it can still hand out',
      );
    }
    const [free, total] = native.memGetInfo(this.#device);
    return { free, total };
  }

  /**
   * A CUDA IPC handle to `memory` (a `MemoryPointer` from `memalloc`, or a view of one) that
   * another process opens with `openIpcHandle` of `@rmmjs/interop` (or the Python helper there):
   * the handle of the allocation around it and the offset in it, as RMM's manager returns. The
   * importer must let go before `memory` is freed (see `exportIpcHandle`). Managed and page-locked
   * host memory cannot be shared (`ERR_INVALID_ARG_VALUE`); freed memory is `ERR_RMM_DISPOSED`.
   */
  getIpcHandle(memory: MemoryPointer): IpcHandle {
    if (!(memory instanceof MemoryPointer)) throw invalidArgType('memory', 'an instance of MemoryPointer', memory);
    const { ptr, size, offset } = memory; // each throws ERR_RMM_DISPOSED once it was freed
    const buffer = memory.buffer;
    if (buffer === null) {
      const what = memory instanceof ManagedMemory ? 'managed memory' : 'page-locked host memory';
      throw invalidArgValue('memory', `is ${what}, which CUDA IPC cannot share`);
    }
    if (size === 0 || ptr === 0n) throw invalidArgValue('memory', 'is empty: it has no memory to share');
    const whole = exportIpcHandle(buffer);
    return { ...whole, offset: whole.offset + offset, size };
  }

  /**
   * Frees everything it handed out that is not freed yet (memory objects become unusable, views
   * included) and runs the releases deferCleanup was holding. It may be called before
   * `initialize()`, and the manager stays usable.
   */
  reset(): void {
    const errors: unknown[] = [];
    this.#resetting = true;
    try {
      for (const ref of [...this.#live.values()]) {
        const memory = ref.deref();
        try {
          if (memory !== undefined && !memory.freed) memory.free();
        } catch (error) {
          errors.push(error);
        }
      }
      errors.push(...this.#runPending());
    } finally {
      this.#resetting = false;
    }
    throwAll(errors, 'reset');
  }

  /**
   * While a scope is open, the releases that synchronise the device are held: freeing and
   * unpinning page-locked host memory and freeing managed memory (each waits for the device's
   * work first). Memory freed meanwhile is unusable at once and given back when the last scope
   * closes (or at `reset()`). Device memory from `memalloc` goes back to its resource at once,
   * as RMM's manager does (a memory pool reuses it without synchronising). Memory the garbage
   * collector takes is given back when it is collected.
   *
   *   using _ = manager.deferCleanup();   // a Disposable
   *   manager.deferCleanup(() => work()); // or around a callback (async ones: until it settles)
   */
  deferCleanup(): Disposable;
  deferCleanup<T>(fn: () => T): T;
  deferCleanup<T>(fn?: () => T): Disposable | T {
    if (fn !== undefined) validateFunction(fn, 'fn');
    this.#deferScopes++;
    let open = true;
    const scope: Disposable = {
      [Symbol.dispose]: () => {
        if (!open) return;
        open = false;
        if (--this.#deferScopes === 0) throwAll(this.#runPending(), 'deferCleanup');
      },
    };
    return fn === undefined ? scope : runInScope(scope, fn);
  }

  // Makes memory with a Release that also forgets it here once it is given back, and tracks it
  // for reset() and the collector.
  #handOut<T extends Releasable>(release: Release, make: (release: Release) => T, pin?: Pin): T {
    const id = this.#nextId++;
    const tracked: Release = {
      release: () => release.release(),
      released: () => {
        const done = release.released();
        if (done && this.#live.delete(id)) collected.unregister(tracked);
        return done;
      },
    };
    const memory = make(tracked);
    this.#live.set(id, new WeakReference(memory));
    collected.register(memory, { live: this.#live, id, pin }, tracked);
    return memory;
  }

  #hostMemory(mapped: boolean, size: number, devicePtr: bigint, release: Release, host: HostInit) {
    return mapped
      ? new MappedMemory(INTERNAL, { ptr: devicePtr, size, device: this.#device, buffer: null }, release, host)
      : new PinnedMemory(INTERNAL, size, this.#device, release, host);
  }

  #whenCleanupAllowed(action: () => void): void {
    if (this.#deferScopes > 0 && !this.#resetting) this.#pending.push(action);
    else action();
  }

  // Runs the held releases; those that fail stay held (tried again later). Returns their errors.
  #runPending(): unknown[] {
    const pending = this.#pending;
    this.#pending = [];
    const errors: unknown[] = [];
    for (const action of pending) {
      try {
        action();
      } catch (error) {
        errors.push(error);
        this.#pending.push(action);
      }
    }
    return errors;
  }
}

function throwAll(errors: unknown[], what: string): void {
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `${what}: ${errors.length} releases failed`);
}
