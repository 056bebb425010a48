/**
 * The tokens of `DeviceMemoryResource#share()` and `DeviceBuffer#transfer()`: plain objects of
 * strings and numbers (they go through `postMessage`, `workerData`, `structuredClone` and JSON),
 * signed natively (src/native/buffers/token_signature.h) under a key made at random once per process. A
 * token is honoured only by the threads of the process that made it; one that is forged or altered
 * is refused.
 */
import { invalidArgType, RMMError } from './errors.js';
import { native } from './native.js';

interface TokenFields {
  /** Which kind of token. */
  readonly kind: string;
  /** The process that made it (for messages; `process` decides). */
  readonly pid: number;
  /** A random name of the process that made it (a pid can be reused). */
  readonly process: string;
  /** What it names, in that process. */
  readonly id: string;
  /** The signature of kind, process and id. */
  readonly mac: string;
}

/** What `DeviceMemoryResource#share()` returns; `DeviceMemoryResource.fromShared` takes it. */
export interface SharedResourceToken extends TokenFields {
  readonly kind: 'rmmjs:resource';
  /** The class of the resource, e.g. `'PoolMemoryResource'` (informative). */
  readonly className: string;
}

/** What `DeviceBuffer#transfer()` returns; `DeviceBuffer.fromTransferred` claims it once. */
export interface TransferredBufferToken extends TokenFields {
  readonly kind: 'rmmjs:buffer';
  /** The buffer's size in bytes (informative). */
  readonly size: number;
}

type Kind = 'rmmjs:resource' | 'rmmjs:buffer';

const MADE_BY: Record<Kind, string> = {
  'rmmjs:resource': 'DeviceMemoryResource#share()',
  'rmmjs:buffer': 'DeviceBuffer#transfer()',
};
const NAMES: Record<Kind, string> = { 'rmmjs:resource': 'resource', 'rmmjs:buffer': 'DeviceBuffer' };
const ID = /^[1-9][0-9]{0,19}$/;

let instance: string | undefined;

// This process's random name (the same on every thread).
function processInstance(): string {
  instance ??= native.tokenInstance();
  return instance;
}

// What a token's signature covers.
const signed = (kind: string, instance: string, id: string) => `${kind}\n${instance}\n${id}`;

/** A signed token of `kind` for `id`, with the informative `fields`. */
export function makeToken<T extends SharedResourceToken | TransferredBufferToken>(
  kind: T['kind'],
  id: string,
  fields: Omit<T, keyof TokenFields>,
): T {
  const ours = processInstance();
  return { kind, ...fields, pid: process.pid, process: ours, id, mac: native.tokenSign(signed(kind, ours, id)) } as T;
}

// A property of a value that may be a Proxy or have getters: undefined when reading it throws.
function read(value: object, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

function invalidToken(message: string): RMMError {
  return new RMMError(message, { code: 'ERR_RMM_INVALID_TOKEN' });
}

/**
 * The id a token of `kind` names, once it is known to be one this process made: else
 * `ERR_INVALID_ARG_TYPE` (not a token of that kind) or `ERR_RMM_INVALID_TOKEN` (another process's,
 * forged or altered).
 */
export function tokenId(token: unknown, kind: Kind, name = 'token'): string {
  const expected = `a token from ${MADE_BY[kind]}`;
  if (typeof token !== 'object' || token === null) throw invalidArgType(name, expected, token);
  const [tokenKind, pid, instance, id, mac] = ['kind', 'pid', 'process', 'id', 'mac'].map((key) => read(token, key));
  if (tokenKind !== kind) {
    const error = invalidArgType(name, expected, token);
    if (tokenKind === 'rmmjs:resource' || tokenKind === 'rmmjs:buffer') {
      error.message = `The "${name}" argument must be ${expected}. Received a token from ${MADE_BY[tokenKind]}`;
    }
    throw error;
  }
  if (typeof pid !== 'number' || typeof instance !== 'string' || typeof id !== 'string' || !ID.test(id)) {
    throw invalidArgType(name, `${expected} (its pid, process and id are missing or altered)`, token);
  }
  if (typeof mac !== 'string') throw invalidArgType(name, `${expected} (its mac is missing)`, token);
  const what = NAMES[kind];
  const ours = processInstance();
  if (instance !== ours) {
    throw invalidToken(
      `This ${what} token was made in another process (process ${instance}, pid ${pid}; this is process ` +
        `${ours}, pid ${process.pid}): resources and buffers move only between the threads of one process`,
    );
  }
  if (!native.tokenVerify(signed(kind, ours, id), mac)) {
    throw invalidToken(`This ${what} token was not made by ${MADE_BY[kind]} in this process: it is forged or altered`);
  }
  return id;
}
