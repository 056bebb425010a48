// Tokens of DeviceMemoryResource#share() and DeviceBuffer#transfer() as arguments: one the world
// was given (as it is, through JSON, with an informative field changed), one altered or cut short,
// one of the other kind, or a hostile value; with the error core's token table names for each.
import fc from 'fast-check';
import * as V from './values.js';
import { pick } from './world.js';

const valid = ['valid', 'valid', 'json', 'pid', 'informative', 'frozen'];
const refused = {
  mac: 'invalidToken', // forged or altered: the signature does not match
  id: 'invalidToken',
  process: 'invalidToken', // another process's
  badId: 'type', // not a token's id at all
  kind: 'type',
  otherKind: 'type', // a buffer token for fromShared, a resource token for fromTransferred
  noMac: 'type',
  noId: 'type',
  noProcess: 'type',
  noPid: 'type',
};

export const token = fc.oneof(
  { weight: 6, arbitrary: fc.record({ tok: fc.constantFrom(...valid), i: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ tok: fc.constantFrom(...Object.keys(refused)), i: fc.nat() }) },
  { weight: 1, arbitrary: V.hostile },
);

const flip = (hex) => (hex[0] === '0' ? '1' : '0') + hex.slice(1);
const without = (object, key) => {
  const copy = { ...object };
  delete copy[key];
  return copy;
};

/**
 * The token a descriptor stands for, the error it requires recorded on `call`: `{ value, record }`
 * (`record` is the world's entry of the token, for a token that names it), or undefined when the
 * world has no token of that kind yet. `own` and `other` are the world's records ({ token }) of the
 * kind asked for and of the other kind.
 */
export function tokenArg(call, descriptor, own, other) {
  if (!('tok' in descriptor)) {
    const value = call.value(descriptor);
    call.invalid('type');
    return { value };
  }
  const { tok, i } = descriptor;
  const record = pick(tok === 'otherKind' ? other : own, i);
  if (record === undefined) return undefined;
  const t = record.token;
  if (tok in refused) call.invalid(refused[tok]);
  switch (tok) {
    case 'valid':
      return { value: t, record };
    case 'json':
      return { value: JSON.parse(JSON.stringify(t)), record };
    case 'pid': // for messages only: the process field decides
      return { value: { ...t, pid: t.pid + 1 }, record };
    case 'informative':
      return { value: 'size' in t ? { ...t, size: t.size + 1 } : { ...t, className: 'Other' }, record };
    case 'frozen':
      return { value: Object.freeze({ ...t }), record };
    case 'mac':
      return { value: { ...t, mac: flip(t.mac) } };
    case 'id':
      return { value: { ...t, id: String(BigInt(t.id) + 1000n) } };
    case 'process':
      return { value: { ...t, process: flip(t.process) } };
    case 'badId':
      return { value: { ...t, id: `0${t.id}` } };
    case 'kind':
      return { value: { ...t, kind: 'rmmjs:other' } };
    case 'otherKind':
      return { value: t };
    case 'noMac':
      return { value: without(t, 'mac') };
    case 'noId':
      return { value: without(t, 'id') };
    case 'noProcess':
      return { value: without(t, 'process') };
    case 'noPid':
      return { value: without(t, 'pid') };
  }
  throw new Error(`unknown token descriptor ${tok}`);
}

/** Checks a token's shape: a plain object of the kind, JSON as it is. */
export function isToken(value, kind) {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.getPrototypeOf(value) === Object.prototype &&
    value.kind === kind &&
    JSON.stringify(JSON.parse(JSON.stringify(value))) === JSON.stringify(value)
  );
}
