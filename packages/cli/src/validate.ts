/**
 * Argument checks of the library's exported functions, with rmmjs's error classes and codes:
 * `TypeError` `ERR_INVALID_ARG_TYPE` (the wrong type), `TypeError` `ERR_INVALID_ARG_VALUE` (a value
 * that is not one of those allowed), `RangeError` `ERR_OUT_OF_RANGE` (a number out of range).
 *
 * An object argument (a log, a report) is read once, into a copy the function then works on, so a
 * getter that answers differently the second time cannot get past its check.
 */
import { types } from 'node:util';
import {
  invalidArgType,
  invalidArgValue,
  isMemoryResource,
  outOfRange,
  validateBoolean,
  validateFunction,
  validateInteger,
  validateOptions,
  validateSize,
} from '@rmmjs/core/internal';
import type { DeviceMemoryResource } from '@rmmjs/core';

export { validateBoolean, validateFunction, validateInteger, validateOptions, validateSize };

/** Checks a value and returns it (or a copy of it), or throws naming `name`. */
export type Check<T> = (value: unknown, name: string) => T;

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

export const validateString: Check<string> = (value, name) => {
  if (typeof value !== 'string') throw invalidArgType(name, 'of type string', value);
  return value;
};

/** A byte count or a count: a non-negative safe integer. */
export const validateCount: Check<number> = validateSize;

/** A number that is not NaN or infinite (a time, a ratio). */
export const validateFinite: Check<number> = (value, name) => {
  if (typeof value !== 'number') throw invalidArgType(name, 'of type number', value);
  if (!Number.isFinite(value)) throw outOfRange(name, 'a finite number', value);
  return value;
};

/** A number in (0, max]. */
export function validatePositive(value: unknown, name: string, max: number): number {
  if (typeof value !== 'number') throw invalidArgType(name, 'of type number', value);
  if (!(value > 0 && value <= max)) throw outOfRange(name, `> 0 and <= ${max}`, value);
  return value;
}

/** An integer in [min, max] (safe integers by default). */
export const integerIn =
  (min: number, max = MAX_SAFE): Check<number> =>
  (value, name) =>
    validateInteger(value, name, min, max);

/** A function, or undefined. */
export const validateOptionalFunction = <T extends Function>(value: unknown, name: string): T | undefined =>
  value === undefined ? undefined : validateFunction<T>(value, name);

/** A resource (a brand check: a Proxy of one is not one). */
export function validateResource(value: unknown, name: string): DeviceMemoryResource {
  if (!isMemoryResource(value)) throw invalidArgType(name, 'an instance of DeviceMemoryResource', value);
  return value;
}

/** A non-null object that is not an array (a record, a specification). */
export function validateObject(value: unknown, name: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidArgType(name, 'of type object', value);
  }
  return value as Record<string, unknown>;
}

/** An object with these fields, each checked: a copy with exactly these fields. */
export function shape<S extends Record<string, Check<unknown>>>(
  fields: S,
): Check<{ [K in keyof S]: ReturnType<S[K]> }> {
  return (value, name) => {
    const object = validateObject(value, name);
    const out: Record<string, unknown> = {};
    for (const [key, check] of Object.entries(fields)) out[key] = check(object[key], `${name}.${key}`);
    return out as { [K in keyof S]: ReturnType<S[K]> };
  };
}

/** An array whose elements each pass `check`: a copy. */
export function arrayOf<T>(check: Check<T>): Check<T[]> {
  return (value, name) => {
    if (!Array.isArray(value)) throw invalidArgType(name, 'an array', value);
    const length = value.length;
    const out = new Array<T>(length);
    for (let i = 0; i < length; i++) out[i] = check(value[i], `${name}[${i}]`);
    return out;
  };
}

/** `check`, or null. */
export const nullable =
  <T>(check: Check<T>): Check<T | null> =>
  (value, name) =>
    value === null ? null : check(value, name);

/** `check`, or undefined. */
export const optional =
  <T>(check: Check<T>): Check<T | undefined> =>
  (value, name) =>
    value === undefined ? undefined : check(value, name);

/** One of `allowed` (strings): another string is ERR_INVALID_ARG_VALUE. */
export function oneOf<T extends string>(allowed: readonly T[]): Check<T> {
  return (value, name) => {
    const text = validateString(value, name);
    if (!(allowed as readonly string[]).includes(text)) {
      throw invalidArgValue(name, `must be one of ${allowed.map((a) => `'${a}'`).join(', ')}. Received '${text}'`);
    }
    return text as T;
  };
}

export const validateStrings: Check<string[]> = arrayOf(validateString);

/** Where output goes: objects with a `write` method (the streams themselves, not copies: `isTTY` is read later). */
export function validateWritable(value: unknown, name: string): NodeJS.WritableStream {
  if (value === null || typeof value !== 'object') throw invalidArgType(name, 'a writable stream', value);
  validateFunction((value as { write?: unknown }).write, `${name}.write`);
  return value as NodeJS.WritableStream;
}

/** What the workloads allocate from: an object with `allocate` and `deallocate` methods. */
export function validateAllocator(value: unknown, name: string): void {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
    throw invalidArgType(name, 'an object with allocate and deallocate methods', value);
  }
  const { allocate, deallocate } = value as { allocate?: unknown; deallocate?: unknown };
  validateFunction(allocate, `${name}.allocate`);
  validateFunction(deallocate, `${name}.deallocate`);
}

// A typed array's length, buffer and offset, from the intrinsic getters (a subclass cannot override them).
const intrinsic = (key: string) =>
  Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), key)!.get! as (this: unknown) => never;
const typedArrayLength = intrinsic('length') as (this: unknown) => number;
const typedArrayBuffer = intrinsic('buffer') as (this: unknown) => ArrayBufferLike;
const typedArrayOffset = intrinsic('byteOffset') as (this: unknown) => number;

/** A typed array of one kind (`types.isFloat64Array`, ...) with exactly `length` elements, if given. */
export function typedArray<T>(is: (value: unknown) => value is T, kind: string, length?: number): Check<T> {
  return (value, name) => {
    if (!is(value)) throw invalidArgType(name, `an instance of ${kind}`, value);
    const actual = typedArrayLength.call(value);
    if (length !== undefined && actual !== length) {
      throw invalidArgValue(name, `must have ${length} elements (one per event). Received ${actual}`);
    }
    return value;
  };
}

/** A typed array class (`Uint8Array`, `Float64Array`, ...). */
export interface TypedArrayClass<T> {
  new (buffer: ArrayBufferLike, byteOffset?: number, length?: number): T;
  readonly BYTES_PER_ELEMENT: number;
}

/**
 * A copy of the first `length` elements of `array` (a `Class` that `typedArray` found that long)
 * in a SharedArrayBuffer of its own, so that writes to the original, from this thread or another,
 * no longer reach it. It is read through a view of our own over the same memory: a subclass's
 * methods, or a buffer another thread grows meanwhile, change nothing.
 */
export function copyToShared<T extends ArrayBufferView>(Class: TypedArrayClass<T>, array: T, length: number): T {
  const copy = new Class(new SharedArrayBuffer(length * Class.BYTES_PER_ELEMENT));
  if (length > 0) {
    const source = new Class(typedArrayBuffer.call(array), typedArrayOffset.call(array), length);
    (copy as unknown as Uint8Array).set(source as unknown as Uint8Array);
  }
  return copy;
}

export const isFloat64Array = types.isFloat64Array as (value: unknown) => value is Float64Array;
