/** Argument checks with Node's error codes. Cheap: they run on every hot-path call. */
import { invalidArgType, outOfRange } from './errors.js';
import { parseByteString } from './parse-bytes.js';

/** A byte count: a non-negative safe integer. */
export function validateSize(value: unknown, name: string): number {
  if (typeof value !== 'number') throw invalidArgType(name, 'of type number', value);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw outOfRange(name, 'a non-negative safe integer (0 to 2^53 - 1)', value);
  }
  return value;
}

/** A size option of a resource: a byte count or a byte string (`"1 GiB"`). */
export function validateSizeOption(value: unknown, name: string): number {
  if (typeof value === 'string') return parseByteString(value, name);
  if (typeof value !== 'number') throw invalidArgType(name, 'of type number or string', value);
  return validateSize(value, name);
}

export function validateInteger(value: unknown, name: string, min = -(2 ** 31), max = 2 ** 31 - 1): number {
  if (typeof value !== 'number') throw invalidArgType(name, 'of type number', value);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw outOfRange(name, `an integer >= ${min} and <= ${max}`, value);
  }
  return value;
}

export function validateBoolean(value: unknown, name: string): boolean {
  if (typeof value !== 'boolean') throw invalidArgType(name, 'of type boolean', value);
  return value;
}

export function validateFunction<T extends Function>(value: unknown, name: string): T {
  if (typeof value !== 'function') throw invalidArgType(name, 'of type function', value);
  return value as T;
}

/** An options object: undefined means {}. */
export function validateOptions<T extends object>(value: unknown, name = 'options'): Partial<T> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidArgType(name, 'of type object', value);
  }
  return value as Partial<T>;
}
