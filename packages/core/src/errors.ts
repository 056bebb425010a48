/**
 * rmmjs's error classes (`RMMError`, `OutOfMemoryError`, `CudaError`: RMM's Python exceptions, each
 * with a `code`), and the Node-style argument errors (`ERR_INVALID_ARG_TYPE`, ...).
 */

/** Options of `RMMError` and its subclasses. */
export interface RMMErrorOptions {
  /** The error's `code`; when absent, `RMMError` uses `ERR_RMM_LOGIC` and `CudaError` `ERR_CUDA`. */
  code?: string;
  /** The error that caused this one, set as the standard `cause` (left out when undefined). */
  cause?: unknown;
}

/** RMM's failures (`RuntimeError` in Python). `code` defaults to `ERR_RMM_LOGIC`. */
export class RMMError extends Error {
  /**
   * What failed, as a stable string: `ERR_RMM_LOGIC`, `ERR_RMM_DISPOSED`, `ERR_RMM_WRONG_THREAD`,
   * `ERR_RMM_OUT_OF_MEMORY`, `ERR_CUDA`, ... (see the package README for the full list).
   */
  readonly code: string;

  constructor(message: string, options?: RMMErrorOptions | null) {
    const { code, cause } = optionsOf(options);
    super(message, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
    this.code = code ?? 'ERR_RMM_LOGIC';
  }
}

// An options argument that is not an object (null included) gives no options.
function optionsOf<T extends object>(options: T | null | undefined): Partial<T> {
  return typeof options === 'object' && options !== null ? options : {};
}

/** An allocation that failed (`MemoryError` in Python: bad_alloc, out_of_memory). */
export class OutOfMemoryError extends RMMError {
  constructor(message: string, options?: { cause?: unknown } | null) {
    super(message, { code: 'ERR_RMM_OUT_OF_MEMORY', cause: optionsOf(options).cause });
  }
}

/** Options of `CudaError`: those of `RMMError` plus the CUDA driver's error. */
export interface CudaErrorOptions extends RMMErrorOptions {
  /** The driver's error number (a `CUresult`); default 0. */
  cudaErrorCode?: number;
  /** The name of that error, e.g. `CUDA_ERROR_INVALID_VALUE`; default `CUDA_SUCCESS`. */
  cudaErrorName?: string;
}

/** A failing CUDA call (`code: 'ERR_CUDA'`), or no usable driver/device. */
export class CudaError extends RMMError {
  /** The driver's error number (a `CUresult`), e.g. 100 for `CUDA_ERROR_NO_DEVICE`; 0 when none was given. */
  readonly cudaErrorCode: number;
  /** The name of `cudaErrorCode`, e.g. `CUDA_ERROR_NO_DEVICE`; `CUDA_SUCCESS` when none was given. */
  readonly cudaErrorName: string;

  constructor(message: string, options?: CudaErrorOptions | null) {
    const { code, cause, cudaErrorCode, cudaErrorName } = optionsOf(options);
    super(message, { code: code ?? 'ERR_CUDA', cause });
    this.cudaErrorCode = cudaErrorCode ?? 0;
    this.cudaErrorName = cudaErrorName ?? 'CUDA_SUCCESS';
  }
}

type NodeErrorClass = typeof TypeError | typeof RangeError;

function nodeError(Class: NodeErrorClass, code: string, message: string): Error {
  const error = new Class(message) as Error & { code: string };
  error.code = code;
  return error;
}

// What a property read of value gives, or undefined when it throws (a revoked Proxy, a getter).
function peek(read: () => unknown): unknown {
  try {
    return read();
  } catch {
    return undefined;
  }
}

function describe(value: unknown): string {
  if (value === null) return 'Received null';
  if (value === undefined) return 'Received undefined';
  if (typeof value === 'function') return `Received function ${peek(() => value.name) || '<anonymous>'}`;
  if (typeof value === 'object') {
    const name = peek(() => (value as object).constructor?.name);
    return typeof name === 'string' && name ? `Received an instance of ${name}` : 'Received an object';
  }
  let shown = typeof value === 'bigint' ? `${value}n` : String(value);
  if (typeof value === 'string') shown = `'${value.length > 28 ? `${value.slice(0, 25)}...` : value}'`;
  return `Received type ${typeof value} (${shown})`;
}

// As Node's errors: an option (a dotted name, `options.initialPoolSize`) is a property.
function kindOf(name: string): string {
  return name.includes('.') ? 'property' : 'argument';
}

/**
 * `TypeError` `ERR_INVALID_ARG_TYPE`: `The "name" argument must be <expected>. Received ...`
 * (`The "options.name" property ...` for an option).
 */
export function invalidArgType(name: string, expected: string, actual: unknown): Error {
  return nodeError(
    TypeError,
    'ERR_INVALID_ARG_TYPE',
    `The "${name}" ${kindOf(name)} must be ${expected}. ${describe(actual)}`,
  );
}

/**
 * `TypeError` `ERR_INVALID_ARG_TYPE` for a class that only its package makes (its constructor takes
 * a token the package keeps to itself): `<className> cannot be constructed directly: <how>`.
 */
export function constructedDirectly(className: string, how: string): Error {
  return nodeError(TypeError, 'ERR_INVALID_ARG_TYPE', `${className} cannot be constructed directly: ${how}`);
}

/** `TypeError` `ERR_INVALID_ARG_VALUE` with a reason: `The argument "name" <reason>` (`The property ...`). */
export function invalidArgValue(name: string, reason: string): Error {
  return nodeError(TypeError, 'ERR_INVALID_ARG_VALUE', `The ${kindOf(name)} "${name}" ${reason}`);
}

/** `RangeError` `ERR_OUT_OF_RANGE`: `The value of "name" is out of range. It must be <range>. Received <value>` */
export function outOfRange(name: string, range: string, actual: unknown): Error {
  const shown = typeof actual === 'bigint' ? `${actual}n` : String(actual);
  return nodeError(
    RangeError,
    'ERR_OUT_OF_RANGE',
    `The value of "${name}" is out of range. It must be ${range}. Received ${shown}`,
  );
}

/** Status codes of the C ABI (include/rmmjs/abi.h). */
export const enum Status {
  OutOfMemory = 1,
  Logic = 2,
  Cuda = 3,
  InvalidArgument = 4,
  OutOfRange = 5,
  Disposed = 6,
  DriverNotFound = 7,
  NoDevice = 8,
  WrongThread = 9,
  JsException = 10,
}

/**
 * Builds the JavaScript error for a native status. Every addon receives this function at load
 * and calls it when a native call fails.
 */
export function makeError(
  status: number,
  message: string,
  cudaErrorCode: number,
  nodeCode: string | undefined,
  errorName: (code: number) => string,
): Error {
  switch (status) {
    case Status.OutOfMemory:
      return new OutOfMemoryError(message);
    case Status.Cuda:
      return new CudaError(message, { cudaErrorCode, cudaErrorName: errorName(cudaErrorCode) });
    case Status.InvalidArgument:
      return nodeError(TypeError, nodeCode ?? 'ERR_INVALID_ARG_VALUE', message);
    case Status.OutOfRange:
      return nodeError(RangeError, nodeCode ?? 'ERR_OUT_OF_RANGE', message);
    case Status.Disposed:
      return new RMMError(message, { code: 'ERR_RMM_DISPOSED' });
    case Status.DriverNotFound:
      return new CudaError(message, {
        code: 'ERR_CUDA_DRIVER_NOT_FOUND',
        cudaErrorCode: 3,
        cudaErrorName: 'CUDA_ERROR_NOT_INITIALIZED',
      });
    case Status.NoDevice:
      return new CudaError(message, {
        code: 'ERR_CUDA_NO_DEVICE',
        cudaErrorCode: 100,
        cudaErrorName: 'CUDA_ERROR_NO_DEVICE',
      });
    case Status.WrongThread:
      return new RMMError(message, { code: 'ERR_RMM_WRONG_THREAD' });
    default:
      return new RMMError(message);
  }
}
