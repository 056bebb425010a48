// The oracle: every call succeeds or throws an error of a documented class and code, and a call
// with an argument that is invalid by the public API's rules throws one of the errors those rules
// name (it must not succeed).
import { types } from 'node:util';
import { isHostileError, materialize } from './hostile.js';

/** A failed check: the property fails with it and fast-check shrinks the commands. */
export class FuzzFailure extends Error {
  constructor(message) {
    super(message);
    this.name = 'FuzzFailure';
  }
}

const rmmCodes = {
  ERR_RMM_LOGIC: 'logic',
  ERR_RMM_DISPOSED: 'disposed',
  ERR_RMM_WRONG_THREAD: 'wrongThread',
  ERR_RMM_INVALID_TOKEN: 'invalidToken',
  ERR_RMM_ALREADY_CLAIMED: 'alreadyClaimed',
};
const cudaCodes = { ERR_CUDA: 'cuda', ERR_CUDA_DRIVER_NOT_FOUND: 'noDriver', ERR_CUDA_NO_DEVICE: 'noDriver' };

/**
 * The documented kind of a thrown value, or null: 'type' (TypeError ERR_INVALID_ARG_TYPE),
 * 'value' (TypeError ERR_INVALID_ARG_VALUE), 'range' (RangeError ERR_OUT_OF_RANGE), 'oom'
 * (OutOfMemoryError), 'logic', 'disposed', 'wrongThread' (RMMError), 'cuda', 'noDriver'
 * (CudaError), 'invalidToken', 'alreadyClaimed' (RMMError, of share()/transfer() tokens), 'errno'
 * (an Error whose code is an errno name, ETIMEDOUT, as Node's own), 'hostile' (what a hostile value
 * or callback threw, the same object, or V8's stack overflow when callbacks recurse without end:
 * a CallbackMemoryResource over a resource that leads back to it), 'revoked' (V8's TypeError for a
 * revoked Proxy, which the value itself throws when touched).
 */
export function kindOf(error, core) {
  if (isHostileError(error) || isStackOverflow(error)) return 'hostile';
  if (!(error instanceof Error)) return null;
  const { code } = error;
  if (error instanceof core.OutOfMemoryError) return code === 'ERR_RMM_OUT_OF_MEMORY' ? 'oom' : null;
  if (error instanceof core.CudaError) return cudaCodes[code] ?? null;
  if (error instanceof core.RMMError) return rmmCodes[code] ?? null;
  if (Object.getPrototypeOf(error) === TypeError.prototype) {
    if (code === 'ERR_INVALID_ARG_TYPE') return 'type';
    if (code === 'ERR_INVALID_ARG_VALUE') return 'value';
    if (code === undefined && /proxy that has been revoked/.test(error.message)) return 'revoked';
    if (code === undefined && /private member/.test(error.message)) return 'privateMember';
  }
  if (Object.getPrototypeOf(error) === RangeError.prototype && code === 'ERR_OUT_OF_RANGE') return 'range';
  if (Object.getPrototypeOf(error) === Error.prototype && typeof code === 'string' && /^E[A-Z0-9]+$/.test(code))
    return 'errno';
  return null;
}

function isStackOverflow(error) {
  return (
    error instanceof RangeError && error.code === undefined && error.message === 'Maximum call stack size exceeded'
  );
}

export const allKinds = ['type', 'value', 'range', 'oom', 'logic', 'disposed', 'wrongThread', 'cuda', 'noDriver'];

function describeError(error) {
  if (!(error instanceof Error)) return `a thrown ${typeof error}: ${safeString(error)}`;
  const proto = Object.getPrototypeOf(error);
  return `${proto?.constructor?.name ?? 'Error'} ${error.code ?? '(no code)'}: ${error.message}\n${error.stack}`;
}

function safeString(value) {
  try {
    return typeof value === 'symbol' ? value.toString() : String(value);
  } catch {
    return '<unprintable>';
  }
}

/** With RMMJS_FUZZ_STATS set, what each call did: name -> outcome ('ok' or an error's kind) -> count. */
export const outcomes = process.env.RMMJS_FUZZ_STATS ? new Map() : undefined;

function count(name, outcome) {
  if (outcomes === undefined) return;
  let byOutcome = outcomes.get(name);
  if (byOutcome === undefined) outcomes.set(name, (byOutcome = new Map()));
  byOutcome.set(outcome, (byOutcome.get(outcome) ?? 0) + 1);
}

/**
 * One call under test: its arguments are materialized through it, each checked by the public
 * API's rules; `run` then checks what happened.
 */
export class Call {
  constructor(world, name) {
    this.world = world;
    this.name = name;
    this.required = new Set(); // an argument is invalid: one of these errors is required
    this.allowed = new Set(); // the state may fail the call this way
    this.flags = {}; // throws, revoked, unstable (see materialize)
    // Memory freed through a resource that did not hand it out: the owners may now refuse things.
    if (world.tainted) this.allowed.add('logic');
  }

  /** The value of a descriptor (a hostile one, a literal or a reference into the world). */
  value(descriptor) {
    return this.world.resolve(descriptor, this.flags);
  }

  /** The argument is invalid: the call must fail with `kind` (or another argument's error). */
  invalid(kind) {
    this.required.add(kind);
  }

  /** The call may also fail this way (out of memory, a disposed upstream, a CUDA failure). */
  allow(...kinds) {
    for (const kind of kinds) this.allowed.add(kind);
  }

  #accepts(kind) {
    if (kind === 'hostile') return this.flags.throws || this.flags.unstable || this.allowed.has('hostile');
    if (kind === 'revoked') return this.flags.revoked;
    if (kind === 'privateMember') return this.flags.proxyOfLive;
    if (this.flags.unstable) return true;
    return this.required.has(kind) || this.allowed.has(kind);
  }

  /** Checks a thrown error; returns its kind. */
  checkError(error) {
    if (error instanceof FuzzFailure) throw error; // a check inside a callback failed: report it as it is
    const kind = kindOf(error, this.world.P.core);
    count(this.name, kind ?? 'undocumented');
    if (kind === null) throw new FuzzFailure(`${this.name}: undocumented error: ${describeError(error)}`);
    if (!this.#accepts(kind)) {
      const expected = [...this.required, ...this.allowed].join(', ') || 'success';
      throw new FuzzFailure(`${this.name}: expected ${expected}, got '${kind}': ${describeError(error)}`);
    }
    return kind;
  }

  /** Checks a success. */
  checkSuccess() {
    count(this.name, 'ok');
    if (this.required.size > 0 && !this.flags.unstable) {
      throw new FuzzFailure(`${this.name}: succeeded with an invalid argument (expected ${[...this.required]})`);
    }
  }

  /** Runs fn: `{ ok: true, value }` or `{ ok: false, kind, error }`, both checked. */
  run(fn) {
    this.world.calls++;
    let value;
    try {
      value = fn();
    } catch (error) {
      return { ok: false, kind: this.checkError(error), error };
    }
    this.checkSuccess();
    return { ok: true, value };
  }

  /** The same for a function that may throw or return a promise that rejects. */
  async runAsync(fn) {
    this.world.calls++;
    let value;
    try {
      value = await fn();
    } catch (error) {
      return { ok: false, kind: this.checkError(error), error };
    }
    this.checkSuccess();
    return { ok: true, value };
  }
}

// ---- The public API's rules for each kind of argument (the error table of docs/rmm-python-to-rmmjs.md) ----

/** A byte count: a non-negative safe integer; any other number is out of range, anything else the wrong type. */
export function size(call, value) {
  if (typeof value !== 'number') call.invalid('type');
  else if (!Number.isSafeInteger(value) || value < 0) call.invalid('range');
  return value;
}

/** A size option: a byte count or a byte string that parseBytes takes. */
export function sizeOption(call, value) {
  if (typeof value === 'string') {
    try {
      return call.world.P.core.parseBytes(value);
    } catch (error) {
      call.invalid(kindOf(error, call.world.P.core));
      return undefined;
    }
  }
  if (typeof value !== 'number') {
    call.invalid('type');
    return undefined;
  }
  size(call, value);
  return value;
}

/** An integer in [min, max]. */
export function integer(call, value, min, max) {
  if (typeof value !== 'number') call.invalid('type');
  else if (!Number.isInteger(value) || value < min || value > max) call.invalid('range');
  return value;
}

export function boolean(call, value) {
  if (typeof value !== 'boolean') call.invalid('type');
  return value;
}

export function func(call, value) {
  if (typeof value !== 'function') call.invalid('type');
  return value;
}

/** An options object: undefined is {}, anything but a non-array object the wrong type. */
export function options(call, value) {
  if (value === undefined) return true;
  if (value === null || typeof value !== 'object' || isArray(value)) {
    call.invalid('type');
    return false;
  }
  return true;
}

// Array.isArray of a revoked Proxy throws (and so does the code under test: the value's own error).
function isArray(value) {
  try {
    return Array.isArray(value);
  } catch {
    return false;
  }
}

/** A string. */
export function string(call, value) {
  if (typeof value !== 'string') call.invalid('type');
  return value;
}

/** Host bytes: an ArrayBuffer or any view, over any buffer (its byte length, or undefined). */
export function hostBytes(call, value) {
  const length = hostLength(value);
  if (length === undefined) call.invalid('type');
  return length;
}

const lengthGetters = [
  [types.isArrayBuffer, Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get],
  [types.isTypedArray, Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), 'byteLength').get],
  [types.isDataView, Object.getOwnPropertyDescriptor(DataView.prototype, 'byteLength').get],
];

/** The bytes a host value holds (0 when detached or out of bounds), or undefined when it is not host memory. */
export function hostLength(value) {
  for (const [is, get] of lengthGetters) {
    if (!is(value)) continue;
    try {
      return get.call(value);
    } catch {
      return 0;
    }
  }
  return undefined;
}

export { materialize };
