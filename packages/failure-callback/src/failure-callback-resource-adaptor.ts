import { type DeviceMemoryResource, OutOfMemoryError, UpstreamResourceAdaptor } from '@rmmjs/core';
import {
  heldJsException,
  holdJsException,
  invalidArgType,
  registerResourceClass,
  resourceHandle,
  takeHeldJsException,
  validateFunction,
} from '@rmmjs/core/internal';
import { addon, type NativeOnFailure } from './addon.js';

/** Called with the size of an allocation that ran out of memory: `true` retries it, `false` fails it. */
export type FailureCallback = (nbytes: number) => boolean;

function isOutOfMemory(error: unknown): boolean {
  if (error instanceof OutOfMemoryError) return true;
  try {
    // An OutOfMemoryError of another realm (vm context) still has the code.
    return (
      typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'ERR_RMM_OUT_OF_MEMORY'
    );
  } catch {
    return false;
  }
}

// What the native adaptor calls on an upstream failure that may be out of memory. When the
// upstream threw (a JavaScript resource below), the bridge holds the error: only an
// OutOfMemoryError asks the callback, and unless the allocation is retried that same error
// object is what the caller gets (held again: the callback may have thrown and caught others).
function onFailure(callback: FailureCallback): NativeOnFailure {
  return (nbytes, upstreamThrew) => {
    const thrown = upstreamThrew ? heldJsException() : undefined;
    if (upstreamThrew && (thrown === undefined || !isOutOfMemory(thrown.error))) return false;
    const retry: unknown = callback(nbytes);
    if (typeof retry !== 'boolean') {
      const error = invalidArgType('callback', 'of type boolean', retry);
      error.message = error.message.replace('The "callback" argument', 'The value returned by "callback"');
      throw error;
    }
    if (thrown !== undefined) {
      if (retry) takeHeldJsException();
      else holdJsException(thrown.error);
    }
    return retry;
  };
}

/**
 * RMM's `FailureCallbackResourceAdaptor`: when an allocation from `upstream` runs out of memory
 * (`OutOfMemoryError`, from native code or thrown by a JavaScript resource below), it calls
 * `callback(nbytes)`; `true` tries the allocation again, `false` lets the original error reach
 * the caller (the same error, with the same message). An error the callback throws reaches the
 * caller unchanged; other upstream failures pass through without a call.
 *
 * The callback runs only on the JavaScript thread that created the adaptor. Allocations from
 * other threads (workers, native threads) work, but when they run out of memory the callback is
 * not called: they get the `OutOfMemoryError`, its message saying why.
 */
export class FailureCallbackResourceAdaptor extends UpstreamResourceAdaptor {
  constructor(upstream: DeviceMemoryResource, callback: FailureCallback) {
    const upstreamHandle = resourceHandle(upstream, 'upstream');
    validateFunction(callback, 'callback');
    super(addon.create(upstreamHandle, onFailure(callback)));
  }
}

registerResourceClass('FailureCallbackResourceAdaptor', FailureCallbackResourceAdaptor);
