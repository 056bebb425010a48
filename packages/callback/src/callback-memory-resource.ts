import {
  DEFAULT_STREAM,
  DeviceMemoryResource,
  LEGACY_DEFAULT_STREAM,
  PER_THREAD_DEFAULT_STREAM,
  Stream,
} from '@rmmjs/core';
import { invalidArgType, outOfRange, registerResourceClass, validateFunction } from '@rmmjs/core/internal';
import { addon } from './addon.js';

/** Allocates `nbytes` on `stream`; returns the pointer (256-byte aligned, as every resource's). */
export type AllocateCallback = (nbytes: number, stream: Stream) => bigint | number;
/** Frees what the allocate callback returned for `nbytes` on `stream`. */
export type DeallocateCallback = (ptr: bigint, nbytes: number, stream: Stream) => void;

const MAX_POINTER = 2n ** 64n - 1n;

function streamOf(handle: bigint): Stream {
  switch (handle) {
    case 0n:
      return DEFAULT_STREAM;
    case 1n:
      return LEGACY_DEFAULT_STREAM;
    case 2n:
      return PER_THREAD_DEFAULT_STREAM;
    default:
      return Stream.fromHandle(handle);
  }
}

function returnedPointer(value: unknown): bigint {
  const what = 'The value returned by the "allocate" callback';
  if (typeof value === 'bigint') {
    if (value >= 0n && value <= MAX_POINTER) return value;
  } else if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  } else {
    const error = invalidArgType('allocate', 'of type bigint or number', value);
    error.message = error.message.replace('The "allocate" argument', what);
    throw error;
  }
  const error = outOfRange('allocate', 'a pointer: an integer from 0 to 2^64 - 1', value);
  error.message = error.message.replace('The value of "allocate"', what);
  throw error;
}

/**
 * A memory resource whose allocations are made by JavaScript functions, as RMM's
 * `CallbackMemoryResource` (for debugging and experiments: every operation calls into
 * JavaScript). It is a native resource like any other: it can be the current device resource,
 * back `DeviceBuffer`s and sit under any adaptor or pool.
 *
 * `allocate(nbytes, stream)` returns a pointer (a bigint, or a number), `deallocate(ptr, nbytes,
 * stream)` frees it; `stream` is a `Stream` (`DEFAULT_STREAM` for the default stream). An error
 * either throws reaches the caller unchanged, through every native layer in between. A returned
 * `0n` is an `OutOfMemoryError`, another type a `TypeError` (`ERR_INVALID_ARG_TYPE`).
 *
 * The functions run only on the JavaScript thread that created the resource: an allocation or
 * deallocation from another worker, a native thread or a thread pool (or after the creating
 * worker exited) fails with `RMMError` `ERR_RMM_WRONG_THREAD` and calls nothing.
 */
export class CallbackMemoryResource extends DeviceMemoryResource {
  constructor(allocate: AllocateCallback, deallocate: DeallocateCallback) {
    validateFunction(allocate, 'allocate');
    validateFunction(deallocate, 'deallocate');
    super(
      addon.create(
        (nbytes, streamHandle) => returnedPointer(allocate(nbytes, streamOf(streamHandle))),
        (ptr, nbytes, streamHandle) => {
          deallocate(ptr, nbytes, streamOf(streamHandle));
        },
      ),
    );
  }
}

registerResourceClass('CallbackMemoryResource', CallbackMemoryResource);
