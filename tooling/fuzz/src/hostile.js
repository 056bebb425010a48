// Hostile values. Arbitraries generate plain descriptors (printable, shrinkable, the same for a
// seed); `materialize` turns one into a fresh value when a command runs, because Proxies,
// detached buffers and throwing getters cannot be generated once and reused.
import { types } from 'node:util';
import fc from 'fast-check';

/** What hostile values throw: the oracle accepts exactly these objects (the same object, unwrapped). */
export class HostileError extends Error {
  constructor(where) {
    super(`hostile value threw (${where})`);
    this.name = 'HostileError';
    this.code = 'ERR_FUZZ_HOSTILE';
    thrownByHostileValues.add(this);
  }
}
const thrownByHostileValues = new WeakSet();
export const isHostileError = (error) =>
  typeof error === 'object' && error !== null && thrownByHostileValues.has(error);

const MiB = 1 << 20;

export const specialNumbers = [
  0,
  -0,
  1,
  -1,
  0.5,
  255,
  256,
  257,
  4096,
  MiB,
  NaN,
  Infinity,
  -Infinity,
  2 ** 31,
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53,
  2 ** 64,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  Number.EPSILON,
  -(2 ** 53),
  1e-300,
];
export const specialBigints = [
  0n,
  1n,
  2n,
  -1n,
  255n,
  256n,
  2n ** 53n,
  2n ** 63n,
  2n ** 64n - 1n,
  2n ** 64n,
  -(2n ** 70n),
];
export const specialStrings = [
  '',
  '0',
  '1',
  '256',
  '1 KiB',
  '2kib',
  '2kb',
  '2k',
  '1.5 GB',
  '1.5',
  '16 MiB',
  '1 PiB',
  '99999999999 pib',
  'NaN',
  '-1',
  '-1 b',
  '1e3',
  '0x100',
  ' 5b',
  '5 b ',
  '5\tb',
  '5  mib',
  'abc',
  '\u0000',
  'ünï',
  '1 mib\n',
];

const number = fc.oneof(fc.constantFrom(...specialNumbers), fc.double(), fc.integer({ min: -4096, max: 1 << 20 }));
const bigint = fc.oneof(fc.constantFrom(...specialBigints), fc.bigInt());
const string = fc.oneof(fc.constantFrom(...specialStrings), fc.string({ maxLength: 12 }));

/** A literal descriptor: the value itself. */
const lit = (arbitrary) => arbitrary.map((value) => ({ lit: value }));

const bufferKinds = ['plain', 'detached', 'resizable', 'shrunk', 'shared', 'growable', 'growableGrown'];
const viewKinds = ['Uint8Array', 'Int32Array', 'Float64Array', 'DataView', 'Buffer', 'Uint8ClampedArray'];

/** Host memory: an ArrayBuffer or a view over one, in every hostile state. */
export const hostBytes = fc.record({
  h: fc.constant('bytes'),
  over: fc.constantFrom(...bufferKinds),
  view: fc.constantFrom('none', ...viewKinds),
  length: fc.oneof(fc.integer({ min: 0, max: 64 }), fc.integer({ min: 0, max: 70_000 })),
  offset: fc.integer({ min: 0, max: 40 }),
  seed: fc.integer({ min: 1, max: 1 << 30 }),
  tracking: fc.boolean(),
});

/** Everything that is never a valid argument of a given type, plus values that throw when touched. */
export const hostileKinds = [
  'throwingProxy',
  'throwingFunctionProxy',
  'revokedProxy',
  'throwingGetters',
  'throwingPrimitive',
  'coercible',
  'symbol',
  'plainObject',
  'array',
  'function',
  'throwingFunction',
  'boxedNumber',
  'boxedBigint',
  'boxedString',
  'date',
  'promise',
  'map',
  'error',
  'nullPrototype',
  'changingGetter',
];

export const hostile = fc.oneof(
  { weight: 3, arbitrary: lit(fc.oneof(number, bigint, string)) },
  { weight: 1, arbitrary: lit(fc.constantFrom(null, undefined, true, false)) },
  { weight: 4, arbitrary: fc.constantFrom(...hostileKinds).map((h) => ({ h })) },
  { weight: 2, arbitrary: hostBytes },
  { weight: 2, arbitrary: fc.nat().map((i) => ({ h: 'proxyOfLive', i })) },
);

function throwingHandler(where) {
  const handler = {};
  for (const trap of [
    'get',
    'set',
    'has',
    'ownKeys',
    'getOwnPropertyDescriptor',
    'defineProperty',
    'deleteProperty',
    'getPrototypeOf',
    'setPrototypeOf',
    'isExtensible',
    'preventExtensions',
    'apply',
    'construct',
  ]) {
    handler[trap] = () => {
      throw new HostileError(`${where} ${trap} trap`);
    };
  }
  return handler;
}

// Every option and property name the packages read: a getter that throws for each.
const readNames = [
  'size',
  'data',
  'stream',
  'mr',
  'initialPoolSize',
  'maximumPoolSize',
  'releaseThreshold',
  'enableIpc',
  'arenaSize',
  'dumpLogOnFailure',
  'blockSize',
  'blocksToPreallocate',
  'minSizeExponent',
  'maxSizeExponent',
  'captureStacks',
  'logFileName',
  'autoFlush',
  'nonBlocking',
  'priority',
  'poolSize',
  'records',
  'name',
  'orderedBy',
  'code',
  'cause',
  'cudaErrorCode',
  'cudaErrorName',
  'numCalls',
  'memoryTotal',
  'memoryPeak',
  'totalBytes',
  'peakBytes',
  'currentBytes',
  'currentCount',
  'peakCount',
  'totalCount',
  'cudaArrayInterface',
  '__cuda_array_interface__',
  'length',
  'byteLength',
  'then',
  'constructor',
];

function throwingGetters() {
  const object = {};
  for (const name of readNames) {
    Object.defineProperty(object, name, {
      enumerable: true,
      get() {
        throw new HostileError(`getter ${name}`);
      },
    });
  }
  return object;
}

const throwing = (where) => () => {
  throw new HostileError(where);
};

function makeBuffer(over, length) {
  switch (over) {
    case 'plain':
      return new ArrayBuffer(length);
    case 'detached': {
      const buffer = new ArrayBuffer(length);
      structuredClone(buffer, { transfer: [buffer] });
      return buffer;
    }
    case 'resizable':
      return new ArrayBuffer(length, { maxByteLength: length + 64 });
    case 'shrunk': {
      const buffer = new ArrayBuffer(length + 32, { maxByteLength: length + 64 });
      return buffer;
    }
    case 'shared':
      return new SharedArrayBuffer(length);
    case 'growable':
      return new SharedArrayBuffer(length, { maxByteLength: length + 64 });
    case 'growableGrown': {
      const buffer = new SharedArrayBuffer(length, { maxByteLength: length + 64 });
      buffer.grow(length + 16);
      return buffer;
    }
  }
  throw new Error(`unknown buffer kind ${over}`);
}

/** Host bytes as described, filled with a pattern (the bytes the model expects to be copied). */
export function makeHostBytes({ over, view, length, offset, seed, tracking }) {
  const detachLater = over === 'detached';
  const buffer = makeBuffer(detachLater ? 'plain' : over, length + offset);
  fill(new Uint8Array(buffer), seed);
  let result = buffer;
  if (view !== 'none') {
    const Class = view === 'Buffer' ? Buffer : globalThis[view];
    const itemSize = Class.BYTES_PER_ELEMENT ?? 1;
    const start = offset - (offset % itemSize);
    const resizable = buffer.resizable || buffer.growable;
    const items = Math.floor((buffer.byteLength - start) / itemSize);
    if (view === 'Buffer') result = Buffer.from(buffer, start, items);
    else if (tracking && resizable && (buffer.byteLength - start) % itemSize === 0) result = new Class(buffer, start);
    else result = new Class(buffer, start, items);
  }
  if (over === 'shrunk') buffer.resize(Math.max(0, Math.floor(length / 2)));
  if (detachLater) structuredClone(buffer, { transfer: [buffer] });
  return result;
}

export function fill(bytes, seed) {
  let x = seed >>> 0 || 1;
  for (let i = 0; i < bytes.length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    bytes[i] = x & 0xff;
  }
  return bytes;
}

/** Whether every byte of `bytes` is `value` (compared a MiB at a time: a fuzzed size may be large). */
export function allBytesAre(bytes, value) {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunk = Buffer.alloc(Math.min(view.length, 1 << 20), value);
  for (let at = 0; at < view.length; at += chunk.length) {
    const part = view.subarray(at, at + chunk.length);
    if (part.compare(chunk, 0, part.length) !== 0) return false;
  }
  return true;
}

/** The bytes a host value holds now (its view's range), or undefined when it is not host memory. */
export function bytesOf(value) {
  try {
    if (types.isAnyArrayBuffer(value)) return new Uint8Array(value).slice();
    if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength).slice();
  } catch {
    return new Uint8Array(0); // detached, or out of bounds after a shrink
  }
  return undefined;
}

/**
 * The value a descriptor stands for. `world.liveObjects()` gives what a Proxy may wrap; the flags
 * say what the oracle must allow: `throws` (it may throw its own HostileError), `revoked` (V8's
 * TypeError for a revoked Proxy), `unstable` (it answers differently each time: any documented
 * outcome).
 */
export function materialize(descriptor, world, flags) {
  if ('lit' in descriptor) return descriptor.lit;
  switch (descriptor.h) {
    case 'throwingProxy':
      flags.throws = true;
      return new Proxy({}, throwingHandler('proxy'));
    case 'throwingFunctionProxy':
      flags.throws = true;
      return new Proxy(function target() {}, throwingHandler('function proxy'));
    case 'revokedProxy': {
      flags.revoked = true;
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    }
    case 'throwingGetters':
      flags.throws = true;
      return throwingGetters();
    case 'throwingPrimitive':
      flags.throws = true;
      return {
        valueOf: throwing('valueOf'),
        toString: throwing('toString'),
        [Symbol.toPrimitive]: throwing('Symbol.toPrimitive'),
      };
    case 'coercible':
      return { valueOf: () => 256, toString: () => '256', [Symbol.toPrimitive]: () => 256 };
    case 'symbol':
      return Symbol('fuzz');
    case 'plainObject':
      return {};
    case 'array':
      return [256, 1];
    case 'function':
      // Never a pointer: a function returning a made-up address would be a lying allocator.
      return function fuzzFunction() {
        return undefined;
      };
    case 'throwingFunction':
      flags.throws = true;
      return throwing('function');
    case 'boxedNumber':
      return Object(256);
    case 'boxedBigint':
      return Object(256n);
    case 'boxedString':
      return Object('1 KiB');
    case 'date':
      return new Date(0);
    case 'promise':
      return Promise.resolve(256);
    case 'map':
      return new Map([['size', 256]]);
    case 'error':
      return new Error('not a value');
    case 'nullPrototype':
      return Object.create(null);
    case 'changingGetter': {
      // Valid on the first read, hostile after: catches code that reads an option twice.
      flags.unstable = true;
      let reads = 0;
      return new Proxy(
        {},
        {
          get: (_, key) => (key === Symbol.toPrimitive || key === 'then' ? undefined : reads++ === 0 ? 256 : -1),
          has: () => true,
        },
      );
    }
    case 'proxyOfLive': {
      // The object's getters run on the Proxy, where its private fields are not: V8's TypeError.
      flags.proxyOfLive = true;
      const live = world.liveObjects();
      const target = live.length === 0 ? {} : live[descriptor.i % live.length];
      return new Proxy(target, {});
    }
    case 'bytes':
      return makeHostBytes(descriptor);
  }
  throw new Error(`unknown hostile descriptor ${JSON.stringify(descriptor)}`);
}
