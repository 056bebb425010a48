/** The typed face of core's addon (src/native). Internal: packages use @rmmjs/core/internal. */
import { makeError, Status } from './errors.js';
import { requireAddon } from './load-addon.js';

/** A type-tagged napi_external holding one native reference. */
export type ResourceHandle = object & { readonly __brand: 'ResourceHandle' };
export type StreamNative = object & { readonly __brand: 'StreamNative' };
/** A DeviceBuffer's slot number in its thread's table of native buffers (src/native/bindings/buffer_handles.h). */
export type BufferNative = number & { readonly __brand: 'BufferNative' };
export type CoreApi = object & { readonly __brand: 'CoreApi' };
/** A type-tagged napi_external owning an `rmmjs_memory` (include/rmmjs/abi.h) until it is taken. */
export type MemoryHandle = object & { readonly __brand: 'MemoryHandle' };
/** A type-tagged napi_external holding a weak reference (bindings/bind_reclaim.cc). */
export type WeakReferenceHandle = object & { readonly __brand: 'WeakReferenceHandle' };
/** A type-tagged napi_external owning an `rmmjs_buffer_guard` until it is taken. */
export type BufferGuardHandle = object & { readonly __brand: 'BufferGuardHandle' };

export interface DriverInfo {
  mode: 'cuda' | 'host' | 'broken';
  reason: string;
  library: string;
  deviceCount: number;
  driverVersion: number;
  hostStatus: number;
}

/** Members not given keep their defaults (see src/native/copies/staged_copy.cc). */
export interface StagingShape {
  /** Bytes per pinned chunk (64 KiB to 1 GiB, rounded down to whole 64 KiB). */
  chunkBytes?: number;
  /** Pinned chunks in the ring (1 to 64). */
  depth?: number;
  /** The most one host memcpy moves (64 KiB to 1 GiB, rounded down to whole 64 KiB). */
  pieceBytes?: number;
  /** Threads doing host memcpy (1 to 64). */
  lanes?: number;
  /** Streaming stores into host memory (1), into the pinned chunks (2), both (3) or neither (0). */
  stores?: number;
  /** The shortest span of a copy (64 KiB to 1 GiB, rounded down to whole 64 KiB). */
  smallestSpan?: number;
}

export interface NativeCore {
  coreApi: CoreApi;
  abiVersion: string;
  init(makeError: MakeErrorFn): void;

  driverInfo(): DriverInfo;
  requireCuda(): void;
  getDevice(): number;
  setDevice(device: number): void;
  errorName(code: number): string;
  synchronize(device: number): void;
  memGetInfo(device: number): [number, number];
  deviceAttribute(device: number, attribute: number): number;
  deviceName(device: number): string;
  lastPrefetchLocation(ptr: bigint, nbytes: number): number;
  getDefaultMemPool(device: number): bigint;

  allocate(mr: ResourceHandle, nbytes: number, stream?: StreamNative): bigint;
  deallocate(mr: ResourceHandle, ptr: bigint, nbytes: number, stream?: StreamNative): void;
  createCudaMemoryResource(device?: number): ResourceHandle;
  createManagedMemoryResource(device?: number): ResourceHandle;
  createSystemMemoryResource(device?: number): ResourceHandle;
  createPinnedHostMemoryResource(device?: number): ResourceHandle;
  createSamHeadroomMemoryResource(headroom: number, device?: number): ResourceHandle;
  createCudaAsyncMemoryResource(
    initialPoolSize: number | undefined,
    releaseThreshold: number | undefined,
    enableIpc: boolean,
    device?: number,
  ): ResourceHandle;
  createCudaAsyncViewMemoryResource(poolHandle: bigint, device?: number): ResourceHandle;
  asyncPoolHandle(mr: ResourceHandle, view: boolean): bigint;
  resourceInfo(mr: ResourceHandle): { typeName: string; device: number; flags: number; address: bigint };
  resourceAddress(mr: ResourceHandle): bigint;
  resourceUpstream(mr: ResourceHandle): ResourceHandle | null;
  resourceIsEqual(a: ResourceHandle, b: ResourceHandle): boolean;
  resourceDispose(mr: ResourceHandle): void;
  resourceIsDisposed(mr: ResourceHandle): boolean;
  getPerDeviceResource(device: number | undefined): ResourceHandle;
  setPerDeviceResource(device: number | undefined, mr: ResourceHandle): ResourceHandle;
  /** The devices that have a resource in the registry (set, or the default handed out). */
  initializedDevices(): number[];

  streamCreate(nonBlocking: boolean, priority: number): StreamNative;
  streamBorrow(handle: bigint): StreamNative;
  // The stream a stream argument left undefined stands for (the native side decides it).
  streamDefault(): StreamNative;
  streamHandle(stream: StreamNative): bigint;
  streamInfo(stream: StreamNative): { device: number; owned: boolean; priority: number };
  streamSynchronize(stream: StreamNative): void;
  streamSynchronizeAsync(stream: StreamNative): Promise<void>;
  streamDispose(stream: StreamNative): void;

  // A null handle (a freed buffer) makes every call throw ERR_RMM_DISPOSED.
  bufferCreate(
    object: object,
    mr: ResourceHandle | undefined,
    size: number,
    stream: StreamNative | undefined,
    data: ArrayBufferView | ArrayBuffer | undefined,
  ): BufferNative;
  bufferCopy(buffer: BufferNative | null, object: object): BufferNative;
  // undefined, or an error to throw after the buffer was freed all the same; throws when the
  // buffer keeps its memory.
  bufferFree(buffer: BufferNative): Error | undefined;
  bufferPtr(buffer: BufferNative | null): bigint;
  bufferSize(buffer: BufferNative | null): number;
  bufferCapacity(buffer: BufferNative | null): number;
  bufferDevice(buffer: BufferNative | null): number;
  bufferResize(buffer: BufferNative | null, size: number, stream: StreamNative | undefined): void;
  bufferReserve(buffer: BufferNative | null, capacity: number, stream: StreamNative | undefined): void;
  bufferCopyFromHost(
    buffer: BufferNative | null,
    data: ArrayBufferView | ArrayBuffer,
    stream: StreamNative | undefined,
  ): void;
  bufferCopyToHost(
    buffer: BufferNative | null,
    target: ArrayBufferView | ArrayBuffer,
    stream: StreamNative | undefined,
  ): void;
  bufferCopyFromDevice(
    buffer: BufferNative | null,
    ptr: bigint,
    nbytes: number,
    stream: StreamNative | undefined,
  ): void;
  bufferPrefetch(buffer: BufferNative | null, device: number, stream: StreamNative | undefined): void;
  bufferResource(buffer: BufferNative | null): ResourceHandle;
  // An asynchronous copy (DeviceBuffer#copyInSlices): pins the buffer and returns a stream handle
  // of the copy's own; the calls after it also take a buffer freed meanwhile.
  bufferBeginAsync(buffer: BufferNative | null, stream: StreamNative | undefined): StreamNative;
  bufferSynchronizeAsync(buffer: BufferNative, stream: StreamNative): Promise<void>;
  bufferCopySlice(
    buffer: BufferNative,
    host: ArrayBufferView | ArrayBuffer,
    offset: number,
    nbytes: number,
    toHost: boolean,
    stream: StreamNative,
    name: string,
  ): number;
  bufferEndAsync(buffer: BufferNative): void;
  // The shape the first staged copy of the process makes the pinned staging with (copies/staged_copy.cc),
  // for tuning on a given machine (tooling/scripts/copy-sweep.mjs) and for the tests. A member out of
  // range is ERR_OUT_OF_RANGE; after that copy, ERR_RMM_LOGIC.
  setStagingShape(shape: StagingShape): void;
  // Lent memory (bindings/bind_lent_memory.cc).
  bufferAdopt(object: object, memory: MemoryHandle, stream: StreamNative | undefined): BufferNative;
  bufferHold(buffer: BufferNative | null): MemoryHandle;
  bufferGuard(buffer: BufferNative | null, guard: BufferGuardHandle): void;

  // Threads (src/native/bindings/bind_threads.cc): ids are decimal strings of tokens src/tokens.ts verified.
  tokenInstance(): string;
  tokenSign(text: string): string;
  tokenVerify(text: string, signature: string): boolean;
  resourceShare(mr: ResourceHandle): string;
  // A new reference, or null when the resource is gone.
  resourceFromShared(id: string): ResourceHandle | null;
  // Detaches the buffer from its object (its handle must not be used again).
  bufferTransfer(buffer: BufferNative): string;
  // null when claimed or reclaimed already.
  bufferClaim(id: string, object: object): BufferNative | null;
  bufferStream(buffer: BufferNative | null): StreamNative;
  bufferReclaimTransfer(id: string): boolean;
  freeUnclaimedTransfers(): void;

  // Reclaim (bindings/bind_reclaim.cc): gives back the memory of the owners (DeviceBuffers, the
  // owners addons track) the collector found unreachable but has not finalized; the bytes.
  reclaimCollected(): number;
  // The bytes this thread's owners hold: all, or those made since the last markCollected().
  heldBytes(sinceCollection: boolean): number;
  // A full collection and reclaimCollected() just ran: the owners left were reachable.
  markCollected(): void;
  // A weak reference that, unlike WeakRef, does not keep its target alive to the end of the job.
  weakReference(target: object): WeakReferenceHandle;
  weakTarget(reference: WeakReferenceHandle): object | undefined;

  setLogLevel(level: number): void;
  getLogLevel(): number;
  setFlushLevel(level: number): void;
  getFlushLevel(): number;
  shouldLog(level: number): boolean;
  log(level: number, message: string): void;
  flushLog(): void;
}

export type MakeErrorFn = (status: number, message: string, cudaCode: number, nodeCode?: string) => Error;

export const native = requireAddon<NativeCore>(import.meta.url, '..', '@rmmjs/core');

// The error a JavaScript callback threw inside a native chain, on its way to the caller.
let heldException: { error: unknown } | undefined;

/**
 * Hands over the error a JavaScript callback threw inside a native allocation: the addon that
 * ran the callback takes it out of its own Node-API environment (exceptions pending there are
 * invisible to other addons), passes it here and returns RMMJS_ERR_JS_EXCEPTION; the binding at
 * the top then throws this same object. Returns a description, for messages of the (rare)
 * bindings that cannot throw the object itself.
 */
export function holdJsException(error: unknown): string {
  heldException = { error };
  return describe(error);
}

/** "Name: message" of a thrown value, for messages of errors that cannot be the value itself. */
function describe(error: unknown): string {
  try {
    if (error instanceof Error) return `${error.name}: ${error.message}`;
    return typeof error === 'symbol' ? error.toString() : String(error);
  } catch {
    return 'an exception';
  }
}

/** The held error (`{ error }`), or undefined when none is held. */
export function heldJsException(): { error: unknown } | undefined {
  return heldException;
}

/** Returns the held error and forgets it. */
export function takeHeldJsException(): unknown {
  const error = heldException?.error;
  heldException = undefined;
  return error;
}

/** The error factory every addon receives (see include/rmmjs/napi.hpp). */
export const makeNativeError: MakeErrorFn = (status, message, cudaCode, nodeCode) => {
  if (status === Status.JsException && heldException !== undefined) {
    const { error } = heldException;
    heldException = undefined;
    return error as Error;
  }
  return makeError(status, message, cudaCode, nodeCode, (code) => native.errorName(code));
};

native.init(makeNativeError);
