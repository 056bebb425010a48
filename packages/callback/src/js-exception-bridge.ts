/**
 * Carries an error thrown by a JavaScript callback inside a native call to the binding that
 * reports the failure, so the caller gets the very object that was thrown. Node-API keeps the
 * pending exception per addon, so the addon clears it and hands the error to core's
 * holdJsException; core's error factory returns it for status RMMJS_ERR_JS_EXCEPTION.
 */
import { heldJsException, holdJsException, takeHeldJsException } from '@rmmjs/core/internal';

function describe(error: unknown): string {
  try {
    if (error instanceof Error) return `${error.name}: ${error.message}`;
    return typeof error === 'symbol' ? error.toString() : String(error);
  } catch {
    return 'an exception';
  }
}

/** Keeps `error` for the binding that reports the failure; returns a description for messages. */
export function holdError(error: unknown): string {
  holdJsException(error);
  return describe(error);
}

/** The held error (`{ error }`), or undefined when none is held. */
export const heldError = heldJsException;

/** Returns the held error and forgets it. */
export const takeHeldError = takeHeldJsException;
