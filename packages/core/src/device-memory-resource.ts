import { invalidArgType, outOfRange, RMMError } from './errors.js';
import { native, type ResourceHandle } from './native.js';
import { retryAfterReclaim, withReclaim } from './reclaim.js';
import { streamArg, type Stream } from './stream.js';
import { makeToken, tokenId, type SharedResourceToken } from './tokens.js';
import { validateSize } from './validate.js';

const MAX_POINTER = 2n ** 64n - 1n;

// Hot-path functions read once: a property load on the addon's exports costs a few ns per call.
const { allocate: nativeAllocate, deallocate: nativeDeallocate } = native;

function validatePointerAndSize(ptr: unknown, nbytes: unknown): void {
  if (typeof ptr !== 'bigint') throw invalidArgType('ptr', 'of type bigint', ptr);
  if (ptr < 0n || ptr > MAX_POINTER) throw outOfRange('ptr', 'a 64-bit unsigned integer (0 to 2^64 - 1)', ptr);
  validateSize(nbytes, 'nbytes');
}

/** A resource class that can wrap a native resource it did not construct. */
type ResourceClass = abstract new (...args: never[]) => DeviceMemoryResource;

let handleOf: (mr: DeviceMemoryResource) => ResourceHandle;
let isResource: (value: unknown) => value is DeviceMemoryResource;
const classesByTypeName = new Map<string, ResourceClass>();
// One wrapper per native resource in this isolate, so getCurrentDeviceResource() === mr.
const wrappers = new Map<bigint, WeakRef<DeviceMemoryResource>>();
const forgetWrapper = new FinalizationRegistry<{ address: bigint; ref: WeakRef<DeviceMemoryResource> }>(
  ({ address, ref }) => {
    if (wrappers.get(address) === ref) wrappers.delete(address);
  },
);

/**
 * The base of every memory resource: `allocate(nbytes, stream?) -> bigint` and
 * `deallocate(ptr, nbytes, stream?)` over a native resource (C ABI, include/rmmjs/abi.h),
 * shared by every thread and isolate. Not constructible directly.
 */
export class DeviceMemoryResource implements Disposable {
  #handle: ResourceHandle;
  #address: bigint;

  static {
    handleOf = (mr) => mr.#handle;
    // A brand check: no trap or getter runs (a Proxy is not a resource).
    isResource = (value): value is DeviceMemoryResource =>
      typeof value === 'object' && value !== null && #handle in value;
  }

  /** @internal Subclasses pass the native handle their constructor created. */
  constructor(handle: ResourceHandle) {
    if (typeof handle !== 'object' || handle === null) {
      const error = invalidArgType('handle', 'a native resource handle', handle);
      error.message = `${new.target.name} cannot be constructed directly: use a concrete resource such as CudaMemoryResource. ${error.message}`;
      throw error;
    }
    this.#handle = handle;
    this.#address = native.resourceAddress(handle);
    const ref = new WeakRef(this);
    wrappers.set(this.#address, ref);
    forgetWrapper.register(this, { address: this.#address, ref }, ref);
  }

  /** Allocates `nbytes` (256-byte aligned; 0 bytes gives 0n) on `stream`. */
  allocate(nbytes: number, stream?: Stream): bigint {
    const handle = this.#handle;
    // The default stream is passed as no argument (one fewer conversion on the hot path), and the
    // native side refuses a bad size: it is validated here only to say why (Node's error codes).
    if (stream === undefined) {
      try {
        return nativeAllocate(handle, nbytes);
      } catch (error) {
        validateSize(nbytes, 'nbytes');
        return retryAfterReclaim(error, () => nativeAllocate(handle, nbytes), nbytes);
      }
    }
    validateSize(nbytes, 'nbytes');
    const streamNative = streamArg(stream);
    return withReclaim(() => nativeAllocate(handle, nbytes, streamNative), nbytes);
  }

  /** Returns memory that `allocate(nbytes, stream)` gave. */
  deallocate(ptr: bigint, nbytes: number, stream?: Stream): void {
    if (stream === undefined) {
      // As in allocate: the native side refuses bad arguments before it frees anything.
      try {
        nativeDeallocate(this.#handle, ptr, nbytes);
      } catch (error) {
        validatePointerAndSize(ptr, nbytes);
        throw error;
      }
      return;
    }
    validatePointerAndSize(ptr, nbytes);
    nativeDeallocate(this.#handle, ptr, nbytes, streamArg(stream));
  }

  /** The device this resource was created for. */
  get device(): number {
    return native.resourceInfo(this.#handle).device;
  }

  /** True when memory from one can be deallocated by the other. */
  isEqual(other: DeviceMemoryResource): boolean {
    return native.resourceIsEqual(this.#handle, resourceHandle(other, 'other'));
  }

  /**
   * A token for this resource that any thread of this process turns into a resource over the same
   * native object with `DeviceMemoryResource.fromShared(token)` (send it with `postMessage` or in
   * `workerData`). The token holds no reference: it works as long as something in the process still
   * holds the resource (a thread, a buffer, an adaptor, the current device resource).
   */
  share(): SharedResourceToken {
    const id = native.resourceShare(this.#handle);
    return makeToken<SharedResourceToken>('rmmjs:resource', id, {
      className: native.resourceInfo(this.#handle).typeName,
    });
  }

  /**
   * The resource a `share()` token names, in this thread: the existing object where this thread has
   * one, else a new one of its class (its package must be imported in this thread; otherwise a plain
   * `DeviceMemoryResource`). Same native object, so the same `isEqual`, counters and memory. A token
   * from another process, forged or altered, is `ERR_RMM_INVALID_TOKEN`; one whose resource every
   * thread has released is `ERR_RMM_DISPOSED`.
   */
  static fromShared(token: SharedResourceToken): DeviceMemoryResource {
    const id = tokenId(token, 'rmmjs:resource');
    const handle = native.resourceFromShared(id);
    if (handle === null) {
      throw new RMMError(
        'The resource shared under this token no longer exists: every thread released it ' +
          '(keep a reference until the receiving thread has called fromShared)',
        { code: 'ERR_RMM_DISPOSED' },
      );
    }
    return wrapResource(handle);
  }

  /** Releases this object's reference now; the resource goes when nothing else uses it. */
  [Symbol.dispose](): void {
    if (native.resourceIsDisposed(this.#handle)) return;
    if (wrappers.get(this.#address)?.deref() === this) wrappers.delete(this.#address);
    native.resourceDispose(this.#handle);
  }

  toString(): string {
    return `${this.constructor.name}(device ${this.device})`;
  }
}

/** The native handle of a resource argument, or `ERR_INVALID_ARG_TYPE` naming `name`. */
/** Whether `value` is a DeviceMemoryResource: a brand check (no getter runs; a Proxy of one is not one). */
export function isMemoryResource(value: unknown): value is DeviceMemoryResource {
  return isResource(value);
}

export function resourceHandle(mr: unknown, name: string): ResourceHandle {
  if (!isResource(mr)) {
    throw invalidArgType(name, 'an instance of DeviceMemoryResource', mr);
  }
  return handleOf(mr);
}

/** Lets wrapResource build `Class` for native resources whose type name is `typeName`. */
export function registerResourceClass(typeName: string, Class: ResourceClass): void {
  if (typeof typeName !== 'string' || typeName === '') throw invalidArgType('typeName', 'a non-empty string', typeName);
  // Anything else would break wrapping every resource of that type (getCurrentDeviceResource included).
  if (typeof Class !== 'function' || !(Class.prototype instanceof DeviceMemoryResource)) {
    throw invalidArgType('Class', 'a subclass of DeviceMemoryResource', Class);
  }
  classesByTypeName.set(typeName, Class);
}

/**
 * The wrapper of a native resource (adopts `handle`'s reference): the existing one in this
 * isolate, or a new object of its registered class (plain DeviceMemoryResource otherwise).
 */
export function wrapResource(handle: ResourceHandle): DeviceMemoryResource {
  const existing = wrappers.get(native.resourceAddress(handle))?.deref();
  if (existing !== undefined && !native.resourceIsDisposed(handleOf(existing))) {
    native.resourceDispose(handle);
    return existing;
  }
  const { typeName } = native.resourceInfo(handle);
  const Class = classesByTypeName.get(typeName) ?? DeviceMemoryResource;
  // Runs only the base constructor: resource classes keep their state in the native object.
  return Reflect.construct(DeviceMemoryResource, [handle], Class) as DeviceMemoryResource;
}
