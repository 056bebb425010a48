// The JavaScript functions given to CallbackMemoryResource and FailureCallbackResourceAdaptor:
// they pass through to a resource of the world, throw, return junk, or re-enter (free buffers,
// dispose resources, allocate from the resource being called) before they answer.
import fc from 'fast-check';
import { HostileError } from '../hostile.js';
import { Call, FuzzFailure, allKinds, func } from '../params.js';
import * as V from '../values.js';

const step = fc.oneof(
  { weight: 8, arbitrary: fc.constant({ b: 'pass' }) },
  { weight: 1, arbitrary: fc.constant({ b: 'throw' }) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('undefined', 'string', 'negative', 'fraction', 'huge', 'zero', 'symbol', 'proxy', 'object')
      .map((junk) => ({ b: 'junk', junk })),
  },
  { weight: 2, arbitrary: fc.constant({ b: 'number' }) },
  { weight: 3, arbitrary: V.sideAction.map((side) => ({ b: 'side', side })) },
);

/** What a callback does on its successive calls (cycling), or a hostile value instead of a function. */
export const behaviours = V.callback(fc.array(step, { minLength: 1, maxLength: 6 }).map((seq) => ({ seq })));

function junkValue(junk) {
  switch (junk) {
    case 'undefined':
      return undefined;
    case 'string':
      return '4096';
    case 'negative':
      return -256;
    case 'fraction':
      return 256.5;
    case 'huge':
      return 2n ** 64n;
    case 'zero':
      return 0n;
    case 'symbol':
      return Symbol('junk');
    case 'proxy':
      return new Proxy(
        {},
        {
          get() {
            throw new HostileError('returned proxy');
          },
        },
      );
    case 'object':
      return { valueOf: () => 4096 };
  }
  throw new Error(junk);
}

// A nested call the callback makes: checked by the oracle (any documented error), then rethrown
// so that the caller gets the same error object.
function nested(world, name, fn) {
  const call = new Call(world, `callback: ${name}`);
  call.allow(...allKinds, 'hostile');
  let result;
  try {
    result = call.run(fn);
  } catch (error) {
    if (error instanceof FuzzFailure) world.asyncFailure ??= error; // reported after the command
    throw error;
  }
  if (!result.ok) throw result.error;
  return result.value;
}

/** The allocate or deallocate function of a CallbackMemoryResource, over the resource `innerDescriptor` names. */
export function callbackFunction(call, innerDescriptor, behaviour, which) {
  const world = call.world;
  if (!('seq' in behaviour)) return func(call, call.value(behaviour));
  if (call.innerAddress === undefined) {
    const candidate = world.resourceEntry(world.resolve(innerDescriptor));
    const inner = candidate !== undefined && !candidate.disposed ? candidate : world.rootEntry;
    world.keep(inner);
    call.innerAddress = inner.address;
    call.callbackInner = inner.mr;
  }
  const address = call.innerAddress;
  let calls = 0;
  if (which === 'allocate') {
    return (nbytes, stream) => {
      const b = world.tearingDown ? { b: 'pass' } : behaviour.seq[calls++ % behaviour.seq.length];
      if (b.b === 'throw') throw new HostileError('allocate callback');
      if (b.b === 'junk') return junkValue(b.junk);
      if (b.b === 'side') world.sideAction(b.side);
      const inner = world.liveWrapper(address);
      const ptr = nested(world, 'inner allocate', () => inner.allocate(nbytes, stream));
      world.rawAllocated(world.resourceEntry(inner), ptr, nbytes, stream, { viaCallback: true });
      return b.b === 'number' && ptr <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(ptr) : ptr;
    };
  }
  return (ptr, nbytes, stream) => {
    const b = world.tearingDown ? { b: 'pass' } : behaviour.seq[calls++ % behaviour.seq.length];
    if (b.b === 'throw') throw new HostileError('deallocate callback');
    if (b.b === 'junk') return junkValue(b.junk); // ignored: the memory is not freed (the world frees it at the end)
    if (b.b === 'side') world.sideAction(b.side);
    const inner = world.liveWrapper(address);
    nested(world, 'inner deallocate', () => inner.deallocate(ptr, nbytes, stream));
    world.rawFreed(address, ptr, nbytes);
    return undefined;
  };
}

/** The callback of a FailureCallbackResourceAdaptor. */
export function failureCallbackFunction(call, behaviour) {
  const world = call.world;
  if (!('seq' in behaviour)) return func(call, call.value(behaviour));
  let calls = 0;
  return (nbytes) => {
    const b = behaviour.seq[calls++ % behaviour.seq.length];
    if (typeof nbytes !== 'number') throw new Error(`the failure callback got ${typeof nbytes}`);
    if (b.b === 'throw') throw new HostileError('failure callback');
    if (b.b === 'junk') return junkValue(b.junk);
    if (b.b === 'side') world.sideAction(b.side);
    // true retries the allocation: a few times per command (re-entrant allocations included), so
    // that an allocation that can never succeed ends.
    const retry = (b.b === 'pass' || b.b === 'side') && world.retries > 0;
    if (retry) world.retries--;
    return retry;
  };
}
