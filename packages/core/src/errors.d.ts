/** Error classes of API.md, and the Node-style argument errors (`ERR_INVALID_ARG_TYPE`, ...). */
export interface RMMErrorOptions {
    code?: string;
    cause?: unknown;
}
/** RMM's failures (`RuntimeError` in Python). `code` defaults to `ERR_RMM_LOGIC`. */
export declare class RMMError extends Error {
    readonly code: string;
    constructor(message: string, options?: RMMErrorOptions);
}
/** An allocation that failed (`MemoryError` in Python: bad_alloc, out_of_memory). */
export declare class OutOfMemoryError extends RMMError {
    constructor(message: string, options?: {
        cause?: unknown;
    });
}
export interface CudaErrorOptions extends RMMErrorOptions {
    cudaErrorCode?: number;
    cudaErrorName?: string;
}
/** A failing CUDA call (`code: 'ERR_CUDA'`), or no usable driver/device. */
export declare class CudaError extends RMMError {
    readonly cudaErrorCode: number;
    readonly cudaErrorName: string;
    constructor(message: string, options?: CudaErrorOptions);
}
/** `TypeError` `ERR_INVALID_ARG_TYPE`: `The "name" argument must be <expected>. Received ...` */
export declare function invalidArgType(name: string, expected: string, actual: unknown): Error;
/** `TypeError` `ERR_INVALID_ARG_VALUE` with a reason. */
export declare function invalidArgValue(name: string, reason: string): Error;
/** `RangeError` `ERR_OUT_OF_RANGE`: `The value of "name" is out of range. It must be <range>. Received <value>` */
export declare function outOfRange(name: string, range: string, actual: unknown): Error;
/** Status codes of the C ABI (include/rmmjs/abi.h). */
export declare const enum Status {
    OutOfMemory = 1,
    Logic = 2,
    Cuda = 3,
    InvalidArgument = 4,
    OutOfRange = 5,
    Disposed = 6,
    DriverNotFound = 7,
    NoDevice = 8,
    WrongThread = 9
}
/**
 * Builds the JavaScript error for a native status. Every addon receives this function at load
 * and calls it when a native call fails.
 */
export declare function makeError(status: number, message: string, cudaErrorCode: number, nodeCode: string | undefined, errorName: (code: number) => string): Error;
