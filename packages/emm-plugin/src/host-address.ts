import { types } from 'node:util';
import { invalidArgType, invalidArgValue } from '@rmmjs/core/internal';
import { addon } from './native.js';

/**
 * The address of the first byte of `bytes` (an ArrayBuffer, SharedArrayBuffer or view), for
 * `mempin(owner, pointer)` as Numba takes it. Valid while the memory is neither detached nor
 * collected; detached memory has none, nor a DataView out of the bounds of its (shrunk) buffer
 * (`ERR_INVALID_ARG_VALUE`).
 */
export function hostAddress(bytes: ArrayBuffer | SharedArrayBuffer | ArrayBufferView): bigint {
  const isBuffer = types.isArrayBuffer(bytes) || types.isSharedArrayBuffer(bytes);
  if (!isBuffer && !ArrayBuffer.isView(bytes)) {
    throw invalidArgType('bytes', 'an ArrayBuffer, a SharedArrayBuffer or an ArrayBufferView', bytes);
  }
  let view: Uint8Array;
  try {
    view = isBuffer ? new Uint8Array(bytes) : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch {
    // The only ways these throw: a detached buffer, a DataView out of the bounds of its shrunk buffer.
    throw invalidArgValue('bytes', 'is detached or out of bounds: it has no address');
  }
  return addon.address(view);
}
