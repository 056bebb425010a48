import { type ResourceHandle } from './native.js';
import { type Stream } from './stream.js';
/** A resource class that can wrap a native resource it did not construct. */
type ResourceClass = abstract new (...args: never[]) => DeviceMemoryResource;
/**
 * The base of every memory resource: `allocate(nbytes, stream?) -> bigint` and
 * `deallocate(ptr, nbytes, stream?)` over a native resource (C ABI, include/rmmjs/abi.h),
 * shared by every thread and isolate. Not constructible directly.
 */
export declare class DeviceMemoryResource implements Disposable {
    #private;
    /** @internal Subclasses pass the native handle their constructor created. */
    constructor(handle: ResourceHandle);
    /** Allocates `nbytes` (256-byte aligned; 0 bytes gives 0n) on `stream`. */
    allocate(nbytes: number, stream?: Stream): bigint;
    /** Returns memory that `allocate(nbytes, stream)` gave. */
    deallocate(ptr: bigint, nbytes: number, stream?: Stream): void;
    /** The device this resource was created for. */
    get device(): number;
    /** True when memory from one can be deallocated by the other. */
    isEqual(other: DeviceMemoryResource): boolean;
    /** Releases this object's reference now; the resource goes when nothing else uses it. */
    [Symbol.dispose](): void;
    toString(): string;
}
/** The abstract base of resources that wrap another (their upstream), which they keep alive. */
export declare class UpstreamResourceAdaptor extends DeviceMemoryResource {
    /** The upstream resource. */
    get upstreamMr(): DeviceMemoryResource;
    getUpstream(): DeviceMemoryResource;
}
/** The native handle of a resource argument, or `ERR_INVALID_ARG_TYPE` naming `name`. */
export declare function resourceHandle(mr: unknown, name: string): ResourceHandle;
/** Lets wrapResource build `Class` for native resources whose type name is `typeName`. */
export declare function registerResourceClass(typeName: string, Class: ResourceClass): void;
/**
 * The wrapper of a native resource (adopts `handle`'s reference): the existing one in this
 * isolate, or a new object of its registered class (plain DeviceMemoryResource otherwise).
 */
export declare function wrapResource(handle: ResourceHandle): DeviceMemoryResource;
export {};
