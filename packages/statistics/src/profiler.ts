/**
 * RMM's memory profiler: the statistics of a function or block of code, per call, added to a
 * ProfilerRecords under its name. Profiling pushes counters on the current StatisticsResourceAdaptor
 * and pops them when the code ends (for an async function, when its promise settles), so it
 * records nothing while statistics are not enabled. Like RMM's, the counters are one stack:
 * profiled calls that overlap in time (concurrent async functions) share their counts.
 */
import { fileURLToPath } from 'node:url';
import { invalidArgType, invalidArgValue, runInScope, validateFunction, validateOptions } from '@rmmjs/core/internal';
import { ProfilerRecords, defaultProfilerRecords } from './profiler-records.js';
import type { StatisticsResourceAdaptor } from './statistics-resource-adaptor.js';
import { currentStatisticsAdaptor } from './statistics-stack.js';

/** Options of `profiler()`. */
export interface ProfilerOptions {
  /** Where the statistics go (default `defaultProfilerRecords`). */
  records?: ProfilerRecords;
  /** The record's name (default `file:line(function)` where `profiler()` was applied). */
  name?: string;
}

function recordsOption(records: unknown): ProfilerRecords {
  if (records === undefined) return defaultProfilerRecords;
  if (!(records instanceof ProfilerRecords))
    throw invalidArgType('options.records', 'an instance of ProfilerRecords', records);
  return records;
}

/** A profiled block: counters pushed when it is created, popped into `records` when it is disposed. */
export class ProfileScope implements Disposable {
  #adaptor: StatisticsResourceAdaptor | null;
  #name: string;
  #records: ProfilerRecords;
  #closed = false;

  /** Use profileScope(); `records` defaults to `defaultProfilerRecords`. */
  constructor(name: string, records?: ProfilerRecords) {
    this.#name = scopeName(name);
    this.#records = recordsOption(records);
    this.#adaptor = currentStatisticsAdaptor();
    this.#adaptor?.pushCounters();
  }

  /**
   * Pops the counters and adds them to `records` under the scope's name (nothing when statistics
   * were not enabled at creation); a second call does nothing.
   */
  [Symbol.dispose](): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#adaptor !== null) this.#records.add(this.#name, this.#adaptor.popCounters());
  }
}

function scopeName(name: unknown): string {
  if (typeof name !== 'string') throw invalidArgType('name', 'of type string', name);
  if (name === '')
    throw invalidArgValue(
      'name',
      'must not be empty: when profiler is used as a context manager, a name must be provided',
    );
  return name;
}

/** Profiles a block of code: `using _ = profileScope('load', { records? })`. */
export function profileScope(name: string, options: { records?: ProfilerRecords } = {}): ProfileScope {
  const { records } = validateOptions<{ records: ProfilerRecords }>(options);
  return new ProfileScope(name, records);
}

/** Runs `fn` profiled as `name`; returns what it returns (a promise is profiled until it settles). */
export function profile<T>(name: string, fn: () => T, options: { records?: ProfilerRecords } = {}): T {
  const scope = profileScope(name, options);
  try {
    validateFunction(fn, 'fn');
  } catch (error) {
    scope[Symbol.dispose]();
    throw error;
  }
  return runInScope(scope, fn);
}

/** "file:line" of the code that called `callee`, as Python's inspect names a function's source. */
function callerLocation(callee: Function): string {
  const holder: { stack?: string } = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 1;
  Error.captureStackTrace(holder, callee);
  Error.stackTraceLimit = limit;
  // "    at f (file:///app/a.js:12:3)", "    at file:///app/a.js:12:3", "    at /app/a.js:12:3"
  let frame = holder.stack?.split('\n')[1]?.trim() ?? '';
  if (frame.endsWith(')') && frame.includes('(')) frame = frame.slice(frame.lastIndexOf('(') + 1, -1);
  else frame = frame.replace(/^at (async )?/, '');
  const match = /^(.*):(\d+):\d+$/.exec(frame);
  if (match === null) return '<unknown>:0';
  let file = match[1];
  if (file.startsWith('file://')) {
    try {
      file = fileURLToPath(file);
    } catch {
      // keep the URL
    }
  }
  return `${file}:${match[2]}`;
}

/** The name of the class that defines `method` as `key`, looking from `thisArg` up its prototypes. */
function definingClassName(thisArg: unknown, key: string | symbol, method: Function): string | undefined {
  for (let object = thisArg; object !== null && object !== undefined; object = Object.getPrototypeOf(object)) {
    if (Object.getOwnPropertyDescriptor(object, key)?.value === method) {
      return typeof object === 'function' ? object.name : (object as object).constructor?.name;
    }
  }
  return undefined;
}

/** Any function, with any `this`: what `profiler()` can wrap. */
export type AnyFunction = (this: any, ...args: any[]) => any;

function profiled<F extends AnyFunction>(
  fn: F,
  records: ProfilerRecords,
  nameOf: (thisArg: unknown, self: F) => string,
): F {
  const wrapper = function (this: unknown, ...args: unknown[]) {
    return runInScope(new ProfileScope(nameOf(this, wrapper), records), () => fn.apply(this, args));
  } as F;
  Object.defineProperty(wrapper, 'name', { value: fn.name });
  Object.defineProperty(wrapper, 'length', { value: fn.length });
  return wrapper;
}

/**
 * Profiles a function: what `profiler()` returns takes a function and returns it profiled, and is
 * also a method decorator (TypeScript's standard and experimental decorators).
 */
export interface Profiler {
  <F extends AnyFunction>(fn: F, context?: ClassMethodDecoratorContext): F;
  (target: object, propertyKey: string | symbol, descriptor: PropertyDescriptor): PropertyDescriptor;
}

/**
 * RMM's `profiler(records=..., name=...)` decorator: `profiler()(fn)`, or `@profiler()` on a
 * method. Each call of the function adds its statistics to `records` under `name`, by default
 * `file:line(function)`: the file and line where `profiler()` was called (for a decorator, its
 * line, as Python's inspect reports a decorated function) and the function's name, `Class.method`
 * for methods.
 */
export function profiler(options: ProfilerOptions = {}): Profiler {
  const { records: recordsValue, name = '' } = validateOptions<ProfilerOptions>(options);
  const records = recordsOption(recordsValue);
  if (typeof name !== 'string') throw invalidArgType('options.name', 'of type string', name);
  const location = callerLocation(profiler);
  const named = (qualifiedName: string) => name || `${location}(${qualifiedName})`;

  function decorate(target: unknown, context?: unknown, descriptor?: PropertyDescriptor): unknown {
    if (descriptor !== undefined) {
      // experimentalDecorators: (prototype or constructor, key, descriptor)
      if (typeof descriptor.value !== 'function')
        throw invalidArgType('descriptor.value', 'a method', descriptor.value);
      const owner = typeof target === 'function' ? target.name : (target as object).constructor?.name;
      const qualifiedName = named(`${owner}.${String(context)}`);
      return { ...descriptor, value: profiled(descriptor.value, records, () => qualifiedName) };
    }
    const fn = validateFunction<AnyFunction>(target, 'fn');
    if (context === undefined) {
      const qualifiedName = named(fn.name || '<anonymous>');
      return profiled(fn, records, () => qualifiedName);
    }
    const { kind, name: key } = context as ClassMethodDecoratorContext;
    if (kind !== 'method') throw invalidArgValue('context', `must decorate a method. Received a ${String(kind)}`);
    let qualifiedName: string | undefined;
    return profiled(fn, records, (thisArg, self) => {
      qualifiedName ??= named(`${definingClassName(thisArg, key, self) ?? '<unknown>'}.${String(key)}`);
      return qualifiedName;
    });
  }
  return decorate as Profiler;
}
