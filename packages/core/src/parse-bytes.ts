import { invalidArgType, invalidArgValue, outOfRange } from './errors.js';

const BYTE_SIZES: Record<string, number> = {
  b: 1,
  '': 1,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
  tb: 1000 ** 4,
  pb: 1000 ** 5,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
  pib: 1024 ** 5,
};

// RMM's pattern: a decimal number, optional blanks, an optional case-insensitive unit ending in b.
const PATTERN = /^([0-9]+(?:\.[0-9]*)?)[\t ]*((?:[kKmMgGtTpP][iI]?)?[bB])?$/;

/**
 * A byte count from a number or a string such as `"2kib"` (2048) or `"1.5 GB"` (1500000000).
 * SI (kb..pb) and binary (kib..pib) units; the `b` is required (`"2k"` does not parse).
 */
export function parseBytes(s: number | string): number {
  if (typeof s === 'number') {
    if (!Number.isSafeInteger(s) || s < 0) throw outOfRange('s', 'a non-negative safe integer', s);
    return s;
  }
  return parseByteString(s, 's');
}

/** The bytes of the byte string `s`, given as the argument or option `name` (its errors name it). */
export function parseByteString(s: unknown, name: string): number {
  if (typeof s !== 'string') throw invalidArgType(name, 'of type number or string', s);
  const match = PATTERN.exec(s);
  if (match === null) {
    throw invalidArgValue(name, `is invalid. Could not parse ${s} as a byte specification`);
  }
  const bytes = Math.trunc(Number(match[1]) * BYTE_SIZES[(match[2] ?? '').toLowerCase()]);
  if (!Number.isSafeInteger(bytes)) throw outOfRange(name, 'at most 2^53 - 1 bytes', s);
  return bytes;
}
