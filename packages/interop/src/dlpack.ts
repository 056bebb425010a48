/**
 * DLPack 1.1 (https://dmlc.github.io/dlpack/latest/): a DeviceBuffer as a tensor capsule that any
 * DLPack consumer can take, and a capsule from any producer as a DeviceBuffer.
 */
import { DeviceBuffer, RMMError, cuda, type Stream } from '@rmmjs/core';
import {
  adoptMemory,
  holdMemory,
  invalidArgType,
  invalidArgValue,
  isBuffer,
  outOfRange,
  streamArg,
  validateInteger,
  validateOptions,
  validateSize,
} from '@rmmjs/core/internal';
import { addon, type CapsuleExternal, type CapsuleInfo } from './addon.js';
import { dtypeArg, dtypeName, type DLPackDType, type DLPackDTypeName } from './dtypes.js';

/** DLDeviceType values of the memory rmmjs has. */
export const DLDeviceType = {
  /** Host memory the driver does not know, and all memory in host mode. */
  kDLCPU: 1,
  /** Device memory. */
  kDLCUDA: 2,
  /** Page-locked host memory (`PinnedHostMemoryResource`). */
  kDLCUDAHost: 3,
  /** Managed memory (`ManagedMemoryResource`). */
  kDLCUDAManaged: 13,
} as const;

/** Options of `toDLPack`: the tensor's type and layout. */
export interface ToDLPackOptions {
  /** A name (`'float32'`) or `{ code, bits, lanes? }`. Default `'uint8'`. */
  dtype?: DLPackDTypeName | DLPackDType;
  /** Default: one dimension over the buffer's bytes from `byteOffset` (which must be whole elements). */
  shape?: readonly number[];
  /** In elements, one per dimension; default (or null): compact and row-major. */
  strides?: readonly number[] | null;
  /** Bytes from the buffer's start to the tensor's first element. Default 0. */
  byteOffset?: number;
}

/**
 * A DLPack capsule: a `DLManagedTensorVersioned` (DLPack 1.1) that one consumer may take, at most
 * once. A capsule nobody consumed hands its tensor back to the producer (calls the deleter) when it
 * is disposed or collected. `external` is what native consumers take
 * (include/rmmjs/dlpack_capsule.h); `new DLPackCapsule(external)` wraps one a native producer made.
 */
export class DLPackCapsule implements Disposable {
  #external: CapsuleExternal;

  constructor(external: object) {
    if (!addon.isCapsule(external)) {
      throw invalidArgType(
        'external',
        'a DLPack capsule (a napi_external tagged as rmmjs/dlpack_capsule.h says)',
        external,
      );
    }
    this.#external = external;
  }

  /** The napi_external, for a native consumer. */
  get external(): object {
    return this.#external;
  }

  /** True once a consumer took the tensor (or the capsule was disposed). */
  get consumed(): boolean {
    return addon.capsuleInfo(this.#external) === null;
  }

  /** The DLPack version of the tensor, e.g. `{ major: 1, minor: 1 }`; `ERR_RMM_DISPOSED` once consumed. */
  get version(): {
    /** DLPack's major version. */
    major: number;
    /** DLPack's minor version. */
    minor: number;
  } {
    const { major, minor } = this.#info();
    return { major, minor };
  }

  /** The DLDevice: `type` is a DLDeviceType value (see `DLDeviceType`). */
  get device(): {
    /** Where the memory is: a `DLDeviceType` value. */
    type: number;
    /** The device's number (DLDevice's `device_id`). */
    id: number;
  } {
    const info = this.#tensorInfo();
    return { type: info.deviceType as number, id: info.deviceId as number };
  }

  /** The DLDataType, with its name where it has one (`name: 'float32'`). */
  get dtype(): DLPackDType & {
    /** The dtype's name in `dtypes`, where it has one. */
    name?: DLPackDTypeName;
  } {
    const info = this.#tensorInfo();
    const dtype = { code: info.code as number, bits: info.bits as number, lanes: info.lanes as number };
    const name = dtypeName(dtype);
    return name === undefined ? dtype : { ...dtype, name };
  }

  /** The extent of each dimension, in elements. */
  get shape(): number[] {
    return this.#tensorInfo().shape as number[];
  }

  /** In elements; null for a compact, row-major tensor. */
  get strides(): number[] | null {
    return this.#tensorInfo().strides as number[] | null;
  }

  /** Bytes from `data` to the tensor's first element. */
  get byteOffset(): number {
    return this.#tensorInfo().byteOffset as number;
  }

  /** The tensor's data pointer (before byteOffset). */
  get data(): bigint {
    return this.#tensorInfo().data as bigint;
  }

  /** DLPACK_FLAG_BITMASK_READ_ONLY: the producer asks consumers not to write. */
  get readOnly(): boolean {
    return ((this.#tensorInfo().flags as number) & 1) !== 0;
  }

  /** Hands an unconsumed tensor back to its producer now; nothing for a consumed capsule. */
  [Symbol.dispose](): void {
    addon.releaseCapsule(this.#external);
  }

  #info(): CapsuleInfo {
    const info = addon.capsuleInfo(this.#external);
    if (info === null)
      throw new RMMError('DLPackCapsule was consumed and cannot be used', { code: 'ERR_RMM_DISPOSED' });
    return info;
  }

  #tensorInfo(): CapsuleInfo {
    const info = this.#info();
    if (info.shape === undefined) {
      throw new RMMError(
        `DLPackCapsule holds a DLPack ${info.major}.${info.minor} tensor, whose layout rmmjs does not know`,
      );
    }
    return info;
  }
}

function integerArray(value: unknown, name: string, element: (item: unknown, itemName: string) => number): number[] {
  if (!Array.isArray(value)) throw invalidArgType(name, 'an array of integers', value);
  return value.map((item, i) => element(item, `${name}[${i}]`));
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * The buffer as a DLPack capsule: a tensor of `dtype` and `shape` (and `strides`) starting
 * `byteOffset` bytes into the buffer, which must lie within it. The tensor holds the buffer's
 * memory: it stays valid, with its resource, until the consumer calls the deleter (exactly once,
 * from any thread), also after `buffer.free()`. The device is kDLCUDA (device memory),
 * kDLCUDAManaged, kDLCUDAHost (pinned host memory) or kDLCPU (host mode, and host memory the
 * driver does not know). The buffer's stream is synchronised first, so the data is ready on any
 * stream of the consumer's.
 */
export function toDLPack(buffer: DeviceBuffer, options?: ToDLPackOptions): DLPackCapsule {
  if (!isBuffer(buffer)) throw invalidArgType('buffer', 'an instance of DeviceBuffer', buffer);
  const { dtype = 'uint8', shape, strides, byteOffset = 0 } = validateOptions<ToDLPackOptions>(options);
  const type = dtypeArg(dtype, 'options.dtype');
  const size = buffer.size;
  validateSize(byteOffset, 'options.byteOffset');
  if (byteOffset > size) throw outOfRange('options.byteOffset', `<= ${size} (the buffer's size)`, byteOffset);
  const elementBits = type.bits * type.lanes;
  let dims: number[];
  if (shape === undefined) {
    if (elementBits % 8 !== 0) throw invalidArgValue('options.shape', 'is needed for elements of less than a byte');
    const itemsize = elementBits / 8;
    if ((size - byteOffset) % itemsize !== 0) {
      throw invalidArgValue(
        'options.dtype',
        `has ${itemsize}-byte elements, which do not divide the buffer's ${size - byteOffset} bytes from byteOffset: give options.shape`,
      );
    }
    dims = [(size - byteOffset) / itemsize];
  } else {
    dims = integerArray(shape, 'options.shape', validateSize);
  }
  const steps =
    strides == null
      ? null
      : integerArray(strides, 'options.strides', (item, name) => validateInteger(item, name, -MAX_SAFE, MAX_SAFE));
  if (steps !== null && steps.length !== dims.length) {
    throw invalidArgValue('options.strides', `has ${steps.length} entries for ${dims.length} dimensions`);
  }
  checkFits(dims, steps, elementBits, byteOffset, size);
  synchronize(buffer);
  const memory = holdMemory(buffer);
  return new DLPackCapsule(addon.toDLPack(memory, type.code, type.bits, type.lanes, dims, steps, byteOffset));
}

// The buffer's work is done before a consumer reads: its stream's, or, where the Stream object was
// disposed (the buffer keeps the stream itself alive), the whole device's. A default stream is the
// current device's, and a buffer of another device queued its work on that device's default
// stream: there, that device is synchronised instead.
function synchronize(buffer: DeviceBuffer): void {
  try {
    const stream = buffer.stream;
    if (stream.isDefault() && stream.device !== buffer.device) cuda.synchronize(buffer.device);
    else stream.synchronize();
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_RMM_DISPOSED') throw error;
    cuda.synchronize(buffer.device);
  }
}

// The tensor's bytes must lie within the buffer (BigInt: extents can pass 2^53).
function checkFits(shape: number[], strides: number[] | null, elementBits: number, byteOffset: number, size: number) {
  if (shape.some((extent) => extent === 0)) return; // no elements, no bytes
  const bits = BigInt(elementBits);
  let first = 0n; // in bytes from byteOffset
  let end: bigint;
  if (strides === null) {
    const count = shape.reduce((product, extent) => product * BigInt(extent), 1n);
    end = (count * bits + 7n) / 8n;
  } else {
    if (elementBits % 8 !== 0)
      throw invalidArgValue('options.strides', 'cannot be given for elements of less than a byte');
    const itemsize = bits / 8n;
    let low = 0n;
    let high = 0n;
    shape.forEach((extent, i) => {
      const reach = BigInt(extent - 1) * BigInt(strides[i] as number);
      if (reach < 0n) low += reach;
      else high += reach;
    });
    first = low * itemsize;
    end = (high + 1n) * itemsize;
  }
  const start = BigInt(byteOffset) + first;
  const stop = BigInt(byteOffset) + end;
  if (start < 0n || stop > BigInt(size)) {
    throw invalidArgValue(
      'options.shape',
      `with these strides, dtype and byteOffset spans bytes ${start} to ${stop}, outside the buffer's ${size} bytes`,
    );
  }
}

/**
 * Consumes a DLPack capsule (a `DLPackCapsule`, or a capsule external from native code) and returns
 * a DeviceBuffer over the bytes its tensor spans, where they are: `free()` (or the collector) calls
 * the producer's deleter. The tensor's shape, strides and dtype are the capsule's (read them before
 * consuming it). A capsule is consumed once: again is `ERR_INVALID_ARG_VALUE`; a tensor rmmjs
 * cannot use (another DLPack major version, memory that is neither host nor CUDA memory, a
 * malformed shape) is handed back to its producer (the deleter runs) and refused the same way.
 * rmmjs has no read-only buffers: do not write to a view of a capsule flagged read-only.
 */
export function fromDLPack(capsule: DLPackCapsule | object, options?: { stream?: Stream }): DeviceBuffer {
  const external = capsule instanceof DLPackCapsule ? capsule.external : capsule;
  if (!addon.isCapsule(external)) throw invalidArgType('capsule', 'a DLPackCapsule', capsule);
  const { stream } = validateOptions<{ stream?: Stream }>(options);
  streamArg(stream, 'options.stream'); // before the capsule is consumed
  return adoptMemory(addon.fromDLPack(external), { stream });
}
