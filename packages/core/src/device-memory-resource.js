import { invalidArgType } from './errors.js';
import { native } from './native.js';
import { streamArg } from './stream.js';
import { validateSize } from './validate.js';
let handleOf;
const classesByTypeName = new Map();
// One wrapper per native resource in this isolate, so getCurrentDeviceResource() === mr.
const wrappers = new Map();
const forgetWrapper = new FinalizationRegistry(({ address, ref }) => {
    if (wrappers.get(address) === ref)
        wrappers.delete(address);
});
/**
 * The base of every memory resource: `allocate(nbytes, stream?) -> bigint` and
 * `deallocate(ptr, nbytes, stream?)` over a native resource (C ABI, include/rmmjs/abi.h),
 * shared by every thread and isolate. Not constructible directly.
 */
export class DeviceMemoryResource {
    #handle;
    #address;
    static {
        handleOf = (mr) => mr.#handle;
    }
    /** @internal Subclasses pass the native handle their constructor created. */
    constructor(handle) {
        if (typeof handle !== 'object' || handle === null) {
            throw new TypeError(`${new.target.name} cannot be constructed directly: use a concrete resource such as CudaMemoryResource`);
        }
        this.#handle = handle;
        this.#address = native.resourceAddress(handle);
        const ref = new WeakRef(this);
        wrappers.set(this.#address, ref);
        forgetWrapper.register(this, { address: this.#address, ref }, ref);
    }
    /** Allocates `nbytes` (256-byte aligned; 0 bytes gives 0n) on `stream`. */
    allocate(nbytes, stream) {
        validateSize(nbytes, 'nbytes');
        return native.allocate(this.#handle, nbytes, streamArg(stream));
    }
    /** Returns memory that `allocate(nbytes, stream)` gave. */
    deallocate(ptr, nbytes, stream) {
        if (typeof ptr !== 'bigint')
            throw invalidArgType('ptr', 'of type bigint', ptr);
        validateSize(nbytes, 'nbytes');
        native.deallocate(this.#handle, ptr, nbytes, streamArg(stream));
    }
    /** The device this resource was created for. */
    get device() {
        return native.resourceInfo(this.#handle).device;
    }
    /** True when memory from one can be deallocated by the other. */
    isEqual(other) {
        return native.resourceIsEqual(this.#handle, resourceHandle(other, 'other'));
    }
    /** Releases this object's reference now; the resource goes when nothing else uses it. */
    [Symbol.dispose]() {
        if (native.resourceIsDisposed(this.#handle))
            return;
        if (wrappers.get(this.#address)?.deref() === this)
            wrappers.delete(this.#address);
        native.resourceDispose(this.#handle);
    }
    toString() {
        return `${this.constructor.name}(device ${this.device})`;
    }
}
/** The abstract base of resources that wrap another (their upstream), which they keep alive. */
export class UpstreamResourceAdaptor extends DeviceMemoryResource {
    /** The upstream resource. */
    get upstreamMr() {
        const upstream = native.resourceUpstream(resourceHandle(this, 'this'));
        if (upstream === null)
            throw new TypeError(`${this.constructor.name} has no upstream resource`);
        return wrapResource(upstream);
    }
    getUpstream() {
        return this.upstreamMr;
    }
}
/** The native handle of a resource argument, or `ERR_INVALID_ARG_TYPE` naming `name`. */
export function resourceHandle(mr, name) {
    if (!(mr instanceof DeviceMemoryResource)) {
        throw invalidArgType(name, 'an instance of DeviceMemoryResource', mr);
    }
    return handleOf(mr);
}
/** Lets wrapResource build `Class` for native resources whose type name is `typeName`. */
export function registerResourceClass(typeName, Class) {
    classesByTypeName.set(typeName, Class);
}
/**
 * The wrapper of a native resource (adopts `handle`'s reference): the existing one in this
 * isolate, or a new object of its registered class (plain DeviceMemoryResource otherwise).
 */
export function wrapResource(handle) {
    const existing = wrappers.get(native.resourceAddress(handle))?.deref();
    if (existing !== undefined && !native.resourceIsDisposed(handleOf(existing))) {
        native.resourceDispose(handle);
        return existing;
    }
    const { typeName } = native.resourceInfo(handle);
    const Class = classesByTypeName.get(typeName) ?? DeviceMemoryResource;
    // Runs only the base constructor: resource classes keep their state in the native object.
    return Reflect.construct(DeviceMemoryResource, [handle], Class);
}
//# sourceMappingURL=device-memory-resource.js.map