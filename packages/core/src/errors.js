/** Error classes of API.md, and the Node-style argument errors (`ERR_INVALID_ARG_TYPE`, ...). */
/** RMM's failures (`RuntimeError` in Python). `code` defaults to `ERR_RMM_LOGIC`. */
export class RMMError extends Error {
    code;
    constructor(message, options = {}) {
        super(message, options.cause === undefined ? undefined : { cause: options.cause });
        this.name = new.target.name;
        this.code = options.code ?? 'ERR_RMM_LOGIC';
    }
}
/** An allocation that failed (`MemoryError` in Python: bad_alloc, out_of_memory). */
export class OutOfMemoryError extends RMMError {
    constructor(message, options = {}) {
        super(message, { code: 'ERR_RMM_OUT_OF_MEMORY', cause: options.cause });
    }
}
/** A failing CUDA call (`code: 'ERR_CUDA'`), or no usable driver/device. */
export class CudaError extends RMMError {
    cudaErrorCode;
    cudaErrorName;
    constructor(message, options = {}) {
        super(message, { code: options.code ?? 'ERR_CUDA', cause: options.cause });
        this.cudaErrorCode = options.cudaErrorCode ?? 0;
        this.cudaErrorName = options.cudaErrorName ?? 'CUDA_SUCCESS';
    }
}
function nodeError(Class, code, message) {
    const error = new Class(message);
    error.code = code;
    return error;
}
function describe(value) {
    if (value === null)
        return 'Received null';
    if (value === undefined)
        return 'Received undefined';
    if (typeof value === 'function')
        return `Received function ${value.name || '<anonymous>'}`;
    if (typeof value === 'object') {
        const name = value.constructor?.name;
        return name ? `Received an instance of ${name}` : 'Received an object';
    }
    let shown = typeof value === 'bigint' ? `${value}n` : String(value);
    if (typeof value === 'string')
        shown = `'${value.length > 28 ? `${value.slice(0, 25)}...` : value}'`;
    return `Received type ${typeof value} (${shown})`;
}
/** `TypeError` `ERR_INVALID_ARG_TYPE`: `The "name" argument must be <expected>. Received ...` */
export function invalidArgType(name, expected, actual) {
    return nodeError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "${name}" argument must be ${expected}. ${describe(actual)}`);
}
/** `TypeError` `ERR_INVALID_ARG_VALUE` with a reason. */
export function invalidArgValue(name, reason) {
    return nodeError(TypeError, 'ERR_INVALID_ARG_VALUE', `The argument "${name}" ${reason}`);
}
/** `RangeError` `ERR_OUT_OF_RANGE`: `The value of "name" is out of range. It must be <range>. Received <value>` */
export function outOfRange(name, range, actual) {
    const shown = typeof actual === 'bigint' ? `${actual}n` : String(actual);
    return nodeError(RangeError, 'ERR_OUT_OF_RANGE', `The value of "${name}" is out of range. It must be ${range}. Received ${shown}`);
}
/**
 * Builds the JavaScript error for a native status. Every addon receives this function at load
 * and calls it when a native call fails.
 */
export function makeError(status, message, cudaErrorCode, nodeCode, errorName) {
    switch (status) {
        case 1 /* Status.OutOfMemory */:
            return new OutOfMemoryError(message);
        case 3 /* Status.Cuda */:
            return new CudaError(message, { cudaErrorCode, cudaErrorName: errorName(cudaErrorCode) });
        case 4 /* Status.InvalidArgument */:
            return nodeError(TypeError, nodeCode ?? 'ERR_INVALID_ARG_VALUE', message);
        case 5 /* Status.OutOfRange */:
            return nodeError(RangeError, nodeCode ?? 'ERR_OUT_OF_RANGE', message);
        case 6 /* Status.Disposed */:
            return new RMMError(message, { code: 'ERR_RMM_DISPOSED' });
        case 7 /* Status.DriverNotFound */:
            return new CudaError(message, {
                code: 'ERR_CUDA_DRIVER_NOT_FOUND',
                cudaErrorCode: 3,
                cudaErrorName: 'CUDA_ERROR_NOT_INITIALIZED',
            });
        case 8 /* Status.NoDevice */:
            return new CudaError(message, {
                code: 'ERR_CUDA_NO_DEVICE',
                cudaErrorCode: 100,
                cudaErrorName: 'CUDA_ERROR_NO_DEVICE',
            });
        case 9 /* Status.WrongThread */:
            return new RMMError(message, { code: 'ERR_RMM_WRONG_THREAD' });
        default:
            return new RMMError(message);
    }
}
//# sourceMappingURL=errors.js.map