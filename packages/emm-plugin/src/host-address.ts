import { types } from 'node:util';
import { invalidArgType } from '@rmmjs/core/internal';
import { addon } from './native.js';

/**
 * The address of the first byte of `bytes` (an ArrayBuffer, SharedArrayBuffer or view), for
 * `mempin(owner, pointer)` as Numba takes it. Valid while the memory is neither detached nor
 * collected.
 */
export function hostAddress(bytes: ArrayBuffer | SharedArrayBuffer | ArrayBufferView): bigint {
  if (types.isArrayBuffer(bytes) || types.isSharedArrayBuffer(bytes)) return addon.address(new Uint8Array(bytes));
  if (ArrayBuffer.isView(bytes)) return addon.address(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  throw invalidArgType('bytes', 'an ArrayBuffer, a SharedArrayBuffer or an ArrayBufferView', bytes);
}
