/**
 * CUDA IPC: a DeviceBuffer's memory opened by another process (Node, Python, anything that speaks
 * CUDA IPC), and another process's memory as a DeviceBuffer.
 */
import { inspect } from 'node:util';
import { DeviceBuffer, RMMError, type DeviceMemoryResource, type Stream } from '@rmmjs/core';
import {
  adoptMemory,
  constructedDirectly,
  guardBuffer,
  invalidArgType,
  invalidArgValue,
  isBuffer,
  isMemoryResource,
  native,
  outOfRange,
  streamArg,
  validateInteger,
  validateOptions,
  validateSize,
} from '@rmmjs/core/internal';
import { addon, type IpcLease } from './addon.js';

/**
 * What another process needs to open a buffer's memory: plain JSON. CUDA shares whole allocations,
 * so `handle` names the allocation around the buffer and `offset` where the buffer starts in it
 * (many buffers of a pool share one allocation).
 */
export interface IpcHandle {
  /** The format's version, 1 (`openIpcHandle` refuses any other). */
  version: 1;
  /** `'memory'`: a CUDA IPC memory handle (cuIpcGetMemHandle); `'pool'`: export data of an allocation of a memory pool shared with sendIpcPool (cuMemPoolExportPointer). */
  kind: 'memory' | 'pool';
  /** The 64 bytes of the handle or export data, as 128 hexadecimal digits. */
  handle: string;
  /** Bytes from the start of the shared allocation to the buffer. */
  offset: number;
  /** Bytes of the buffer. */
  size: number;
  /** The device, as `GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (device ordinals differ between processes). */
  deviceUuid: string;
  /** Kind `'pool'`: the id of the pool, which the importer receives first (receiveIpcPool). */
  pool?: string;
  /** The exporting process (a random id): opening the handle there is refused. */
  process?: string;
  /** Lets the exporter tell that an importer still has the memory open (see the README). */
  lease?: IpcLease;
}

export type { IpcLease };

// The lease of each exported buffer, while it guards the memory the buffer had then.
const exported = new WeakMap<DeviceBuffer, { ptr: bigint; lease: IpcLease }>();

/**
 * A handle to `buffer`'s memory that another process opens with `openIpcHandle` (or CuPy, PyTorch:
 * see python/rmmjs_ipc.py). Works for sub-allocations (the handle names the allocation around the
 * buffer) and for memory of a CudaAsyncMemoryResource created with `{ enableIpc: true }` (send its
 * pool with `sendIpcPool` too). Managed memory, host memory and pools without IPC are
 * `ERR_INVALID_ARG_VALUE`; host mode is `ERR_CUDA_DRIVER_NOT_FOUND`.
 *
 * Importers must free their views before the exporter frees the memory: while a process that
 * opened the handle with rmmjs (or the Python helper) keeps its view, `buffer.free()` throws
 * `ERR_RMM_LOGIC` and the buffer keeps its memory (also a resize that would move it).
 */
export function exportIpcHandle(buffer: DeviceBuffer): IpcHandle {
  if (!isBuffer(buffer)) throw invalidArgType('buffer', 'an instance of DeviceBuffer', buffer);
  const { ptr, size, device } = buffer;
  native.requireCuda();
  const { kind, handle, offset, deviceUuid, pool } = addon.exportIpc(ptr, size, device);
  let record = exported.get(buffer);
  if (record === undefined || record.ptr !== ptr || !addon.leaseActive(record.lease.slot)) {
    const [guard, lease] = addon.newLeaseGuard();
    guardBuffer(buffer, guard);
    record = { ptr, lease };
    exported.set(buffer, record);
  }
  return {
    version: 1,
    kind,
    handle,
    offset,
    size,
    deviceUuid,
    ...(pool === undefined ? {} : { pool }),
    process: addon.processToken(),
    lease: { ...record.lease },
  };
}

const HEX_HANDLE = /^[0-9a-fA-F]{128}$/;
const UUID = /^GPU-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

// A handle as JSON gave it, checked field by field.
function handleArg(
  value: unknown,
): Required<Pick<IpcHandle, 'kind' | 'handle' | 'offset' | 'size' | 'deviceUuid'>> &
  Pick<IpcHandle, 'pool' | 'process' | 'lease'> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidArgType('handle', 'an IpcHandle object', value);
  }
  const { version, kind, handle, offset, size, deviceUuid, pool, process, lease } = value as Record<string, unknown>;
  if (version !== 1) throw invalidArgValue('handle.version', `must be 1, got ${String(version)}`);
  if (kind !== 'memory' && kind !== 'pool')
    throw invalidArgValue('handle.kind', `must be 'memory' or 'pool', got ${String(kind)}`);
  if (typeof handle !== 'string' || !HEX_HANDLE.test(handle)) {
    throw invalidArgValue('handle.handle', 'must be 128 hexadecimal digits (the 64 bytes of a CUDA IPC handle)');
  }
  validateSize(offset, 'handle.offset');
  validateSize(size, 'handle.size');
  if (size === 0) throw outOfRange('handle.size', '>= 1', size);
  if (typeof deviceUuid !== 'string' || !UUID.test(deviceUuid)) {
    throw invalidArgValue('handle.deviceUuid', "must be a device UUID like 'GPU-1a2b3c4d-...'");
  }
  if (kind === 'pool' && (typeof pool !== 'string' || pool === '')) {
    throw invalidArgValue('handle.pool', "must name the memory pool of a 'pool' handle");
  }
  if (process !== undefined && typeof process !== 'string') throw invalidArgValue('handle.process', 'must be a string');
  return {
    kind,
    handle: handle.toLowerCase(),
    offset: offset as number,
    size: size as number,
    deviceUuid: deviceUuid.toLowerCase().replace(/^gpu-/, 'GPU-'),
    ...(kind === 'pool' ? { pool: pool as string } : {}),
    ...(process === undefined ? {} : { process }),
    ...(lease === undefined ? {} : { lease: leaseArg(lease) }),
  };
}

// The exporter's lease file as it names it (ipc_leases.h): /proc/<pid>/fd/<fd>, and <device>:<inode>.
const LEASE_PATH = /^\/proc\/[1-9][0-9]*\/fd\/(?:0|[1-9][0-9]*)$/;
const FILE_ID = /^[0-9]+:[0-9]+$/;

// A lease as the handle gave it, read once (a getter cannot change it later). Whatever its path
// names is checked again natively before it is opened, without blocking.
function leaseArg(value: unknown): IpcLease {
  if (typeof value !== 'object' || value === null)
    throw invalidArgValue('handle.lease', 'must be { path, file, slot }');
  const { path, file, slot } = value as Record<string, unknown>;
  if (typeof path !== 'string' || typeof file !== 'string' || !Number.isSafeInteger(slot) || (slot as number) < 0) {
    throw invalidArgValue('handle.lease', 'must be { path, file, slot }');
  }
  if (!LEASE_PATH.test(path)) {
    throw invalidArgValue(
      'handle.lease.path',
      `must be /proc/<pid>/fd/<fd> (the exporter's lease file), got ${JSON.stringify(path)}`,
    );
  }
  if (!FILE_ID.test(file)) throw invalidArgValue('handle.lease.file', 'must be "<device>:<inode>" of the lease file');
  return { path, file, slot: slot as number };
}

/**
 * Another process's memory (an `IpcHandle`, from `exportIpcHandle` or the Python helper) as a
 * DeviceBuffer of `handle.size` bytes. The allocation is opened once per process and device and
 * shared by all views of it; `free()` closes the view (the last one closes the mapping) and never
 * frees the memory, which the exporter still owns: free views before the exporter frees it. The
 * device is the one with `handle.deviceUuid` here. Opening a handle in the process that exported it
 * is `CudaError` `CUDA_ERROR_INVALID_CONTEXT`; a malformed handle `ERR_INVALID_ARG_VALUE` (also one
 * whose lease names anything else than the exporter's lease file: a FIFO, a directory, another file;
 * a lease file that does not exist here, in another PID namespace, is no lease); an offset
 * and size past the shared allocation `ERR_OUT_OF_RANGE`; a `'pool'` handle whose pool this
 * process has not received `ERR_RMM_LOGIC`.
 */
export function openIpcHandle(handle: IpcHandle, options?: { stream?: Stream }): DeviceBuffer {
  const checked = handleArg(handle);
  const { stream } = validateOptions<{ stream?: Stream }>(options);
  streamArg(stream, 'options.stream');
  native.requireCuda();
  const memory = addon.openIpc(
    checked.kind,
    checked.handle,
    checked.offset,
    checked.size,
    checked.deviceUuid,
    checked.pool ?? null,
    checked.process ?? null,
    checked.lease ?? null,
  );
  return adoptMemory(memory, { stream });
}

/** Options of `sendIpcPool` and `receiveIpcPool`. */
export interface IpcPoolOptions {
  /** Milliseconds to wait for the other process. Default 60000. */
  timeout?: number;
}

// sun_path of struct sockaddr_un has 108 bytes, the last one for the terminating zero.
function socketPathArg(value: unknown): string {
  if (typeof value !== 'string') throw invalidArgType('socketPath', 'of type string', value);
  if (value.includes('\0')) {
    throw invalidArgValue('socketPath', `must be a file system path without null bytes. Received ${inspect(value)}`);
  }
  const bytes = Buffer.byteLength(value);
  if (bytes === 0 || bytes > 107) {
    throw invalidArgValue('socketPath', `must be a file system path of 1 to 107 bytes, got ${bytes} bytes`);
  }
  return value;
}

function timeoutArg(options: unknown): number {
  const { timeout = 60_000 } = validateOptions<IpcPoolOptions>(options);
  return validateInteger(timeout, 'options.timeout', 0, 2 ** 31 - 1);
}

/**
 * Shares a CUDA memory pool (`new CudaAsyncMemoryResource({ enableIpc: true })`) with another
 * process: listens on a Unix socket at `socketPath`, hands the pool's file descriptor (with its id
 * and device) to the first process that connects (`receiveIpcPool`, or the Python helper), and
 * resolves once it did. Node cannot pass file descriptors by itself; this does it natively
 * (SCM_RIGHTS), off the JavaScript thread. Call it once per importing process. Rejects with an
 * `Error` whose `code` is `ETIMEDOUT` when no process connected within `options.timeout` ms.
 */
export async function sendIpcPool(
  pool: DeviceMemoryResource & { poolHandle(): bigint },
  socketPath: string,
  options?: IpcPoolOptions,
): Promise<void> {
  // A brand check first: a Proxy or an object that only looks like one never reaches the driver.
  if (!isMemoryResource(pool) || typeof (pool as { poolHandle?: unknown }).poolHandle !== 'function') {
    throw invalidArgType('pool', 'a CudaAsyncMemoryResource', pool);
  }
  const path = socketPathArg(socketPath);
  const timeout = timeoutArg(options);
  native.requireCuda();
  await addon.sendPool(pool.poolHandle(), pool.device, path, timeout);
}

// Lets receiveIpcPool construct IpcPool (nothing else can: closing one closes the import of its id).
const RECEIVED: unique symbol = Symbol('receiveIpcPool');

/**
 * A memory pool another process shared: opens that process's `'pool'` handles. `receiveIpcPool`
 * makes it; `new IpcPool()` is a `TypeError` (`ERR_INVALID_ARG_TYPE`).
 */
export class IpcPool implements Disposable {
  /** The pool's id, as its `'pool'` handles name it (`IpcHandle.pool`). */
  readonly id: string;
  /** The device here. */
  readonly device: number;
  /** The device's UUID, `GPU-...` as in `IpcHandle.deviceUuid`. */
  readonly deviceUuid: string;
  #open = true;

  /** @internal */
  constructor(received: typeof RECEIVED, id: string, device: number, deviceUuid: string) {
    if (received !== RECEIVED) throw constructedDirectly('IpcPool', 'receiveIpcPool makes it');
    this.id = id;
    this.device = device;
    this.deviceUuid = deviceUuid;
  }

  /** Lets go of the pool: no more handles of it open; views opened already stay valid. */
  close(): void {
    if (!this.#open) return;
    this.#open = false;
    addon.closePool(this.id);
  }

  /** Same as `close()`. */
  [Symbol.dispose](): void {
    this.close();
  }
}

/**
 * Receives a memory pool another process shares (`sendIpcPool`, or the Python helper): connects to
 * the Unix socket at `socketPath` (again and again, until the sender listens or `options.timeout`
 * ms passed: `code` `ETIMEDOUT`), takes the pool's file descriptor and imports the pool. Its
 * `'pool'` handles then open with `openIpcHandle`.
 */
export async function receiveIpcPool(socketPath: string, options?: IpcPoolOptions): Promise<IpcPool> {
  const path = socketPathArg(socketPath);
  const timeout = timeoutArg(options);
  native.requireCuda();
  const { fd, payload } = await addon.receivePoolDescriptor(path, timeout);
  let message: { version?: unknown; pool?: unknown; deviceUuid?: unknown } | undefined;
  try {
    message = JSON.parse(payload);
  } catch {
    // not JSON: refused below
  }
  if (message?.version !== 1 || typeof message.pool !== 'string' || typeof message.deviceUuid !== 'string') {
    addon.closeDescriptor(fd);
    throw new RMMError(`receiveIpcPool: what was sent at ${path} is not an rmmjs memory pool`);
  }
  const device = addon.importPool(fd, message.pool, message.deviceUuid);
  return new IpcPool(RECEIVED, message.pool, device, message.deviceUuid);
}

/** How many allocations of other processes this process has open (mappings, not views). */
export function openIpcMappings(): number {
  return addon.openMappings();
}
