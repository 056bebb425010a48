// Every resource class: construction with hostile arguments, allocate/deallocate (double, foreign,
// interior and wild frees), isEqual, device, upstream, dispose, and each class's own methods.
import fc from 'fast-check';
import {
  Call,
  FuzzFailure,
  boolean,
  options,
  resource,
  size,
  sizeOption,
  stream,
  streamOfDevice,
  string,
} from '../params.js';
import * as V from '../values.js';
import { behaviours, callbackFunction, failureCallbackFunction } from './callbacks.js';
import { isToken, token as tokenDescriptor, tokenArg } from '../tokens.js';
import { workspaceRegistrations } from '@rmmjs/registry';

// How each constructor is called: from its registration (the "rmmjs" block of its package.json),
// each argument by its declared type. `args` is the arbitrary of the arguments' descriptors;
// `make(call, descriptors)` materializes and classifies them and returns the constructor's
// arguments (undefined: skip the call), setting `call.upstream` where there is one.
function registeredConstructor(registration) {
  const own = customConstructors[registration.class];
  if (own !== undefined) return { pkg: registration.package, name: registration.class, ...own };
  const kinds = registration.arguments.map(argumentKind);
  const unmodelled = registration.arguments.find((argument, i) => kinds[i] === undefined);
  if (unmodelled !== undefined)
    throw new Error(
      `the fuzzer cannot make ${registration.class}'s "${unmodelled.name}" (${unmodelled.type}): ` +
        'add the class to customConstructors in tooling/fuzz/src/models/resources.js',
    );
  const upstream = registration.upstreams === 1 ? [V.resource] : [];
  return {
    pkg: registration.package,
    name: registration.class,
    args: fc.tuple(...upstream, ...kinds.map((kind) => kind.arbitrary)),
    make(call, descriptors) {
      const made = [];
      if (registration.upstreams === 1) {
        const up = resource(call, descriptors[0]);
        call.upstream = up.value;
        made.push(up.value);
      }
      const rest = descriptors.slice(upstream.length);
      for (const [i, kind] of kinds.entries()) {
        const value = kind.value(call, rest[i]);
        if (value === skip) return undefined;
        made.push(value);
      }
      needs(call, registration.needs);
      call.allow(...registration.errors);
      return made;
    },
  };
}

// Returned by an argument's value() when the call must not be made (a wild pointer is the caller's fault).
const skip = Symbol('skip');

const KiB = 1024;
const MiB = 1024 * KiB;
const PiB = 2 ** 50;
// Valid values to try: byte counts around the resources' own thresholds (256-byte alignment, a
// 1 MiB arena, pools of a few MiB, a request no device has); counts; exponents and their ends.
const byteValues = [0, 256, 1000, 4096, 65536, MiB, 4 * MiB, 16 * MiB, 100 * KiB + 1, PiB];
const countValues = [0, 1, 2, 16];
const integerValues = ({ min, max }) => [...new Set([-1, 0, 8, 10, 12, 31, min, max, min - 1, max + 1])];

/** An argument's `{ arbitrary, value(call, descriptor) }` by its registered type; undefined where none is modelled. */
function argumentKind(argument) {
  switch (argument.type) {
    case 'size':
      return {
        arbitrary: argument.bytes ? V.sizeOption(fc.constantFrom(...byteValues)) : V.sizeAmong(...countValues),
        value: (call, d) => checkField(call, argument, call.value(d)),
      };
    case 'integer':
    case 'boolean':
      return {
        arbitrary: argument.type === 'boolean' ? V.bool : V.integerAmong(...integerValues(argument)),
        value: (call, d) => checkField(call, argument, call.value(d)),
      };
    case 'options': {
      const fields = Object.fromEntries(
        Object.entries(argument.fields).map(([key, field]) => [key, fieldArbitrary(field)]),
      );
      const rules = Object.fromEntries(
        Object.entries(argument.fields).map(([key, field]) => [key, (call, value) => checkField(call, field, value)]),
      );
      return {
        arbitrary: V.options(fields),
        value(call, d) {
          const value = optionsValue(call, d, rules);
          for (const [key, field] of Object.entries(argument.fields)) {
            // A file the environment does not name (the fuzzer sets no variables) must be given.
            if (field.requiredUnlessEnv !== undefined && !process.env[field.requiredUnlessEnv]) {
              if (readQuietly(value, key) === undefined) call.invalid('value');
            }
          }
          return value;
        },
      };
    }
    case 'memoryPool':
      return { arbitrary: memoryPoolArbitrary, value: memoryPoolValue };
    default:
      return undefined;
  }
}

const fieldArbitrary = (field) => (field.type === 'fileName' ? V.fileName : argumentKind(field).arbitrary);

/** Classifies a value of a registered argument type: the kind of error it must raise, if any. */
function checkField(call, field, value) {
  switch (field.type) {
    case 'size': {
      const n = field.bytes ? sizeOption(call, value) : (size(call, value), value);
      if (typeof n === 'number' && (n < field.min || (field.max !== undefined && n > field.max))) call.invalid('range');
      return value;
    }
    case 'integer':
      return integerIn(call, value, field.min, field.max);
    case 'boolean':
      return boolean(call, value);
    case 'fileName':
      if (string(call, value) === '') call.invalid('value');
      else if (typeof value === 'string') call.allow('value', 'logic'); // a file that cannot be opened
      return value;
  }
  throw new Error(`no rule for a ${field.type} option`);
}

// A memory pool handle: the device's default pools, an async resource's pool, or wrong ones.
const memoryPoolArbitrary = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      pool: fc.constantFrom('default0', 'default1', 'ofAsync', 'zero', 'negative', 'huge'),
      i: fc.nat(),
    }),
  },
  { weight: 1, arbitrary: V.hostile },
);

function memoryPoolValue(call, d) {
  const world = call.world;
  if (!('pool' in d)) {
    const value = call.value(d);
    if (typeof value !== 'bigint') call.invalid('type');
    else if (value < 0n || value >= 2n ** 64n) call.invalid('range');
    else call.allow('logic', 'cuda', 'noDriver', 'value');
    // Only handles that cannot be a pool reach the driver: a wild one is the caller's fault.
    return typeof value === 'bigint' && value > 0n && value < 2n ** 64n ? skip : value;
  }
  const { core } = world.P;
  switch (d.pool) {
    case 'default0':
    case 'default1':
      if (!core.cuda.isAvailable()) return 0n;
      return core.cuda.getDefaultMemPool(d.pool === 'default1' && world.devices > 1 ? 1 : 0);
    case 'ofAsync': {
      const async = world.resources.filter((e) => !e.disposed && e.mr instanceof core.CudaAsyncMemoryResource);
      return async.length === 0 ? skip : async[d.i % async.length].mr.poolHandle();
    }
    case 'zero':
      call.invalid(core.cuda.isAvailable() ? 'logic' : 'noDriver');
      return 0n;
    case 'negative':
      call.invalid('range');
      return -1n;
    case 'huge':
      call.invalid('range');
      return 2n ** 64n;
  }
}

// Constructors whose arguments are JavaScript functions: the world's callback behaviours.
const customConstructors = {
  FailureCallbackResourceAdaptor: {
    args: fc.tuple(V.resource, behaviours),
    make(call, [upstream, b]) {
      const up = resource(call, upstream);
      call.upstream = up.value;
      call.world.madeJsResources = true;
      return [up.value, failureCallbackFunction(call, b)];
    },
  },
  CallbackMemoryResource: {
    args: fc.tuple(V.resource, behaviours, behaviours),
    make(call, [inner, allocate, deallocate]) {
      call.world.madeJsResources = true;
      return [
        callbackFunction(call, inner, allocate, 'allocate'),
        callbackFunction(call, inner, deallocate, 'deallocate'),
      ];
    },
  },
};

/** What a registration's `needs` makes of a call on this backend. */
function needs(call, needed) {
  if (needed.length === 0) return;
  if (needed.includes('cuda') && call.world.backend === 'host') call.invalid('noDriver');
  if (needed.includes('pageableMemoryAccess') && call.world.backend !== 'host') call.allow('logic'); // no HMM or ATS here
  if (call.world.P.core.cuda.isAvailable()) call.allow('cuda');
}

/** value[key], or undefined when value is not an object or reading it throws. */
function readQuietly(value, key) {
  try {
    return typeof value === 'object' && value !== null ? value[key] : undefined;
  } catch {
    return null;
  }
}

function integerIn(call, value, min, max) {
  if (typeof value !== 'number') call.invalid('type');
  else if (!Number.isInteger(value) || value < min || value > max) call.invalid('range');
  return value;
}

/** An options argument: its value, each field checked by its rule. */
export function optionsValue(call, descriptor, rules) {
  if (descriptor === undefined || !('o' in descriptor)) {
    const value = call.value(descriptor ?? { lit: undefined });
    // Some other object: its properties are whatever it has (a Map's size, a resource's methods).
    if (options(call, value) && value !== undefined) call.allow('type', 'range', 'value', 'logic');
    return value;
  }
  const value = {};
  for (const [key, fieldDescriptor] of Object.entries(descriptor.o)) {
    value[key] = call.value(fieldDescriptor);
    if (value[key] !== undefined) rules[key](call, value[key]);
  }
  return value;
}

function constructorModel(spec) {
  return {
    name: `new ${spec.name}`,
    covers: [`${spec.pkg}:${spec.name}.new`],
    args: spec.args,
    run(world, args) {
      const call = new Call(world, `new ${spec.name}`);
      const made = spec.make(call, args);
      if (made === undefined) return;
      const Class = world.P.byName[spec.name];
      const upstreamEntry = call.upstream === undefined ? undefined : world.resourceEntry(call.upstream);
      if (upstreamEntry !== undefined && !upstreamEntry.disposed) {
        // Construction may allocate through the upstream (pools, arenas, fixed-size chunks): the
        // driver may refuse (a view of a pool whose resource is gone, say).
        if (world.backend !== 'host') call.allow('cuda');
        if (world.counting.reachesJs(upstreamEntry.address))
          call.allow('hostile', 'type', 'range', 'logic', 'disposed', 'value', 'oom', 'wrongThread');
      }
      const result = call.run(() => new Class(...made));
      if (result.ok) {
        if (!(result.value instanceof Class))
          throw new FuzzFailure(`new ${spec.name} made a ${result.value.constructor.name}`);
        world.addResource(result.value, { upstream: call.upstream });
        if (call.callbackInner !== undefined) world.counting.inexact(world.resourceEntry(call.callbackInner)?.address);
      }
    },
  };
}

// A receiver: one of the world's resources of the class (or any, for the base class's methods).
function resourceMethod(name, covers, args, run, { of } = {}) {
  return {
    name,
    covers,
    args: fc.tuple(fc.nat(), ...args),
    run(world, [i, ...rest]) {
      const candidates = world.resources.filter(
        (e) => !e.private && (of === undefined || e.mr instanceof world.P.byName[of]),
      );
      if (candidates.length === 0) return undefined;
      const entry = candidates[i % candidates.length];
      const call = new Call(world, name);
      if (entry.disposed) call.invalid('disposed');
      return run(world, call, entry, ...rest);
    },
  };
}

const core = '@rmmjs/core';
const DMR = `${core}:DeviceMemoryResource`;

const deallocateVariants = [
  'live',
  'live',
  'live',
  'double',
  'foreign',
  'interior',
  'wild',
  'wrongSize',
  'zero',
  'hostile',
];

// The constants a registration exports with its class (an UPPER_CASE name: its defaults), and what
// each read first in this process.
const registeredConstants = workspaceRegistrations().flatMap((registration) =>
  (registration.exports ?? [])
    .filter((name) => /^[A-Z][A-Z0-9_]*$/.test(name))
    .map((name) => ({ pkg: registration.package, name })),
);
const firstRead = new Map();

/** A registered constant is a number, string or boolean, the same in every run whatever was called. */
function registeredConstantsModel() {
  return {
    name: "the resources' constants",
    covers: registeredConstants.map(({ pkg, name }) => `${pkg}:${name}`),
    args: fc.constant(0),
    run(world) {
      for (const { pkg, name } of registeredConstants) {
        const value = world.P.byPackage[pkg][name];
        const key = `${pkg}:${name}`;
        if (!['number', 'string', 'boolean'].includes(typeof value))
          throw new FuzzFailure(`${key} is a ${typeof value}, not a constant`);
        if (!firstRead.has(key)) firstRead.set(key, value);
        if (!Object.is(firstRead.get(key), value))
          throw new FuzzFailure(`${key} was ${String(firstRead.get(key))}, now ${String(value)}`);
      }
    },
  };
}

export default function resourceModels() {
  return [
    ...workspaceRegistrations().map(registeredConstructor).map(constructorModel),
    registeredConstantsModel(),
    {
      name: "fixed-size's defaults",
      covers: ['@rmmjs/fixed-size:DEFAULT_BLOCK_SIZE', '@rmmjs/fixed-size:DEFAULT_BLOCKS_TO_PREALLOCATE'],
      args: fc.constant(0),
      run(world) {
        const { DEFAULT_BLOCK_SIZE, DEFAULT_BLOCKS_TO_PREALLOCATE } = world.P.fixedSize;
        if (DEFAULT_BLOCK_SIZE !== MiB || DEFAULT_BLOCKS_TO_PREALLOCATE !== 128)
          throw new FuzzFailure("RMM's defaults changed");
      },
    },
    resourceMethod(
      'DeviceMemoryResource#allocate',
      [`${DMR}#allocate`, '@rmmjs/statistics:StatisticsResourceAdaptor#allocate'],
      [V.size, V.stream],
      (world, call, entry, n, s) => {
        const nbytes = call.value(n);
        size(call, nbytes);
        const streamArg = stream(call, s);
        if (!entry.disposed) streamOfDevice(call, streamArg, entry.mr.device);
        call.allow('oom');
        if (world.counting.reachesJs(entry.address))
          call.allow('hostile', 'type', 'range', 'logic', 'disposed', 'value', 'wrongThread');
        const result = call.run(() => entry.mr.allocate(nbytes, streamArg.value));
        if (!result.ok) return;
        const ptr = result.value;
        if (typeof ptr !== 'bigint' || (nbytes === 0) !== (ptr === 0n) || ptr % 256n !== 0n) {
          throw new FuzzFailure(`allocate(${nbytes}) gave ${String(ptr)}: not a 256-byte aligned pointer`);
        }
        world.rawAllocated(entry, ptr, nbytes, streamArg.value);
      },
    ),
    resourceMethod(
      'DeviceMemoryResource#deallocate',
      [`${DMR}#deallocate`, '@rmmjs/statistics:StatisticsResourceAdaptor#deallocate'],
      [fc.constantFrom(...deallocateVariants), fc.nat(), V.hostile, V.stream],
      (world, call, entry, variant, j, hostileDescriptor, s) => {
        // A resource that can tell refuses memory it did not hand out; JavaScript below it decides itself.
        const tells = !world.counting.reachesJs(entry.address);
        const refuse = (kind) => (tells ? call.invalid(kind) : call.allow(kind));
        const mine = world.allocations.filter((a) => a.address === entry.address && !a.viaCallback);
        const theirs = world.allocations.filter((a) => a.address !== entry.address && !a.freed && !a.viaCallback);
        let ptr;
        let nbytes;
        let allocation;
        switch (variant) {
          case 'live':
          case 'wrongSize': {
            const live = mine.filter((a) => !a.freed);
            if (live.length === 0) return;
            allocation = live[j % live.length];
            ({ ptr, nbytes } = allocation);
            if (variant === 'wrongSize') {
              nbytes += 1 + (j % 300);
              call.allow('logic');
            }
            break;
          }
          case 'double': {
            const freed = mine.filter((a) => a.freed && a.ptr !== 0n);
            if (freed.length === 0) return;
            ({ ptr, nbytes } = freed[j % freed.length]);
            // Freed memory may have been handed out again (to anyone): then it is a foreign free.
            if (world.allocations.some((a) => !a.freed && a.ptr === ptr)) return;
            refuse('logic');
            break;
          }
          case 'foreign': {
            if (theirs.length === 0) return;
            allocation = theirs[j % theirs.length];
            // Not a block that may start a suballocator's chunk, through a resource that would free it.
            if (world.counting.mayFreeAChunk(entry.address, allocation.address)) return;
            ({ ptr, nbytes } = allocation);
            call.allow('logic');
            break;
          }
          case 'interior': {
            const live = world.allocations.filter((a) => !a.freed && a.nbytes > 256);
            if (live.length === 0) return;
            ptr = live[j % live.length].ptr + 256n;
            nbytes = 256;
            refuse('logic');
            break;
          }
          case 'wild':
            ptr = [0x1000n, 0x7fff_0000_0000n, 256n * 12345n][j % 3];
            if (world.allocations.some((a) => !a.freed && ptr >= a.ptr && ptr < a.ptr + BigInt(a.nbytes))) return;
            nbytes = 256;
            refuse('logic');
            break;
          case 'zero':
            ptr = 0n;
            nbytes = j % 4096;
            break;
          case 'hostile':
            ptr = call.value(hostileDescriptor);
            nbytes = 256;
            if (typeof ptr !== 'bigint') call.invalid('type');
            else if (ptr < 0n || ptr >= 2n ** 64n) call.invalid('range');
            else return; // a wild pointer is the caller's fault
            break;
        }
        const streamArg = stream(call, s);
        if (!entry.disposed) streamOfDevice(call, streamArg, entry.mr.device);
        if (world.counting.reachesJs(entry.address))
          call.allow('hostile', 'type', 'range', 'logic', 'disposed', 'value', 'wrongThread', 'cuda');
        if (call.required.has('logic') || call.allowed.has('logic')) call.allow('cuda');
        const result = call.run(() => entry.mr.deallocate(ptr, nbytes, streamArg.value));
        if (!result.ok) {
          if (result.kind !== 'logic' && allocation !== undefined) world.counting.inexact(allocation.address);
          return;
        }
        if (variant === 'zero') {
          if (entry.mr instanceof world.P.byName.StatisticsResourceAdaptor)
            world.counting.statisticsNullFree(entry.address, nbytes);
          return;
        }
        if (allocation === undefined) {
          world.counting.inexact(entry.address); // JavaScript took a free of memory it never handed out
          return;
        }
        allocation.freed = true;
        if (variant === 'live') world.rawDeallocated(allocation, entry.mr);
        else {
          // Freed through another resource (one over the same memory): gone for every record of it,
          // and the resources that handed it out never hear of it: they may refuse what follows
          // (ERR_RMM_LOGIC: an address they still hold comes back), and the root's count stays up.
          // Through JavaScript, what a callback took from its inner resource is freed only when the
          // callback says so (rawFreed): a callback that returns junk frees nothing.
          const js = world.counting.freesThroughJs(entry.address);
          for (const other of world.allocations)
            if (other.ptr === ptr && !(js && other.viaCallback)) other.freed = true;
          world.tainted = true;
          world.counting.inexact(entry.address);
          world.counting.inexact(allocation.address);
        }
      },
    ),
    resourceMethod(
      'DeviceMemoryResource#isEqual',
      [`${DMR}#isEqual`, `${DMR}#device`, `${DMR}#toString`],
      [V.resource],
      (world, call, entry, other) => {
        const { value } = resource(call, other);
        const result = call.run(() => entry.mr.isEqual(value));
        if (result.ok && typeof result.value !== 'boolean') throw new FuzzFailure('isEqual returned a non-boolean');
        if (result.ok && value === entry.mr && !result.value)
          throw new FuzzFailure('a resource is not equal to itself');
        const device = new Call(world, 'DeviceMemoryResource#device');
        if (entry.disposed) device.invalid('disposed');
        device.run(() => [entry.mr.device, String(entry.mr)]);
      },
    ),
    resourceMethod(
      'DeviceMemoryResource#[Symbol.dispose]',
      [`${DMR}#[Symbol.dispose]`],
      [fc.constant(0)],
      (world, call, entry) => {
        call.required.delete('disposed'); // disposing twice is fine
        if (call.run(() => entry.mr[Symbol.dispose]()).ok) entry.disposed = true;
      },
    ),
    resourceMethod('DeviceMemoryResource#share', [`${DMR}#share`], [fc.constant(0)], (world, call, entry) => {
      const result = call.run(() => entry.mr.share());
      if (!result.ok) return;
      if (!isToken(result.value, 'rmmjs:resource') || typeof result.value.className !== 'string')
        throw new FuzzFailure(`DeviceMemoryResource#share gave ${JSON.stringify(result.value)}`);
      world.shareTokens.push({ token: result.value, entry });
    }),
    {
      name: 'DeviceMemoryResource.fromShared',
      covers: [`${DMR}.fromShared`],
      args: tokenDescriptor,
      run(world, t) {
        const call = new Call(world, 'DeviceMemoryResource.fromShared');
        const arg = tokenArg(call, t, world.shareTokens, world.transfers);
        if (arg === undefined) return;
        const { value, record } = arg;
        // A resource every thread released is gone; one something still holds comes back.
        if (record?.entry.disposed) call.allow('disposed');
        const result = call.run(() => world.P.core.DeviceMemoryResource.fromShared(value));
        if (!result.ok || record === undefined) return;
        const mr = world.adoptResource(result.value);
        if (!record.entry.disposed && mr !== record.entry.mr)
          throw new FuzzFailure('fromShared on the thread that shared a resource is not the very object');
        if (world.resourceEntry(mr)?.address !== record.entry.address)
          throw new FuzzFailure('fromShared gave another native resource than the one shared');
      },
    },
    resourceMethod(
      'UpstreamResourceAdaptor#upstreamMr',
      [`${core}:UpstreamResourceAdaptor#upstreamMr`, `${core}:UpstreamResourceAdaptor#getUpstream`],
      [fc.boolean()],
      (world, call, entry, viaMethod) => {
        const result = call.run(() => (viaMethod ? entry.mr.getUpstream() : entry.mr.upstreamMr));
        if (result.ok) world.adoptResource(result.value);
      },
      { of: 'UpstreamResourceAdaptor' },
    ),
    resourceMethod(
      'CudaAsyncMemoryResource#poolHandle',
      [`${core}:CudaAsyncMemoryResource#poolHandle`, `${core}:CudaAsyncViewMemoryResource#poolHandle`],
      [fc.boolean()],
      (world, call, entry) => {
        const result = call.run(() => entry.mr.poolHandle());
        if (result.ok && typeof result.value !== 'bigint') throw new FuzzFailure('poolHandle() is not a bigint');
      },
      { of: 'CudaAsyncMemoryResource' },
    ),
    resourceMethod(
      'CudaAsyncViewMemoryResource#poolHandle',
      [`${core}:CudaAsyncViewMemoryResource#poolHandle`],
      [fc.boolean()],
      (world, call, entry) => {
        call.run(() => entry.mr.poolHandle());
      },
      { of: 'CudaAsyncViewMemoryResource' },
    ),
    resourceMethod(
      'PoolMemoryResource#poolSize',
      ['@rmmjs/pool:PoolMemoryResource#poolSize'],
      [fc.constant(0)],
      (world, call, entry) => {
        const result = call.run(() => entry.mr.poolSize());
        if (result.ok && !Number.isSafeInteger(result.value)) throw new FuzzFailure('poolSize() is not a size');
      },
      { of: 'PoolMemoryResource' },
    ),
    resourceMethod(
      'FixedSizeMemoryResource#getBlockSize',
      ['@rmmjs/fixed-size:FixedSizeMemoryResource#getBlockSize'],
      [fc.constant(0)],
      (world, call, entry) => {
        const result = call.run(() => entry.mr.getBlockSize());
        if (result.ok && (result.value % 256 !== 0 || result.value === 0))
          throw new FuzzFailure(`getBlockSize() is ${result.value}`);
      },
      { of: 'FixedSizeMemoryResource' },
    ),
    resourceMethod(
      'BinningMemoryResource#addBin',
      ['@rmmjs/binning:BinningMemoryResource#addBin'],
      [V.sizeAmong(256, 512, 1000, 4096, 65536, 0), fc.oneof(fc.constant({ lit: undefined }), V.resource)],
      (world, call, entry, n, bin) => {
        const allocationSize = call.value(n);
        size(call, allocationSize);
        if (allocationSize === 0) call.invalid('range');
        const binArg =
          bin.lit === undefined && !('r' in bin) && !('h' in bin) ? { value: undefined } : resource(call, bin);
        call.allow('oom');
        if (binArg.value !== undefined) call.allow('value'); // itself, or a resource that allocates from it
        if (world.counting.reachesJs(entry.address))
          call.allow('hostile', 'type', 'range', 'logic', 'disposed', 'value', 'wrongThread');
        if (call.run(() => entry.mr.addBin(allocationSize, binArg.value)).ok && binArg.value !== undefined) {
          world.counting.addedBin(entry.address, binArg.value);
        }
      },
      { of: 'BinningMemoryResource' },
    ),
    resourceMethod(
      'BinningMemoryResource#binMrs',
      ['@rmmjs/binning:BinningMemoryResource#binMrs'],
      [fc.constant(0)],
      (world, call, entry) => {
        const result = call.run(() => entry.mr.binMrs);
        if (result.ok) for (const mr of result.value) world.adoptResource(mr);
      },
      { of: 'BinningMemoryResource' },
    ),
    resourceMethod('arenaSummary', ['@rmmjs/arena:arenaSummary'], [V.resource], (world, call, _entry, mr) => {
      const value = call.value(mr);
      const entry = world.resourceEntry(value);
      call.required.delete('disposed'); // the receiver here is only a pick; the argument is what counts
      if (entry === undefined || !(value instanceof world.P.byName.ArenaMemoryResource)) call.invalid('type');
      else if (entry.disposed) call.invalid('disposed');
      const result = call.run(() => world.P.arena.arenaSummary(value));
      if (result.ok && !Number.isSafeInteger(result.value.arenaSize)) throw new FuzzFailure('arenaSummary().arenaSize');
    }),
    resourceMethod(
      'LimitingResourceAdaptor counters',
      [
        '@rmmjs/limiting:LimitingResourceAdaptor#getAllocatedBytes',
        '@rmmjs/limiting:LimitingResourceAdaptor#getAllocationLimit',
      ],
      [fc.constant(0)],
      (world, call, entry) => {
        const result = call.run(() => [entry.mr.getAllocatedBytes(), entry.mr.getAllocationLimit()]);
        if (result.ok && result.value[0] > result.value[1])
          throw new FuzzFailure(`allocated ${result.value[0]} > limit ${result.value[1]}`);
      },
      { of: 'LimitingResourceAdaptor' },
    ),
    resourceMethod(
      'TrackingResourceAdaptor reports',
      [
        '@rmmjs/tracking:TrackingResourceAdaptor#getAllocatedBytes',
        '@rmmjs/tracking:TrackingResourceAdaptor#getOutstandingAllocationCount',
        '@rmmjs/tracking:TrackingResourceAdaptor#getOutstandingAllocationsStr',
        '@rmmjs/tracking:TrackingResourceAdaptor#logOutstandingAllocations',
      ],
      [fc.constant(0)],
      (world, call, entry) => {
        const result = call.run(() => {
          const text = entry.mr.getOutstandingAllocationsStr();
          entry.mr.logOutstandingAllocations();
          return [entry.mr.getOutstandingAllocationCount(), text];
        });
        if (result.ok) {
          const lines =
            result.value[1] === ''
              ? 0
              : result.value[1].split('\n').filter((line) => /^0x[0-9a-f]+: \d+ B/.test(line)).length;
          if (lines !== result.value[0])
            throw new FuzzFailure(
              `getOutstandingAllocationsStr() has ${lines} allocations, the count is ${result.value[0]}`,
            );
        }
      },
      { of: 'TrackingResourceAdaptor' },
    ),
    resourceMethod(
      'StatisticsResourceAdaptor counters',
      [
        '@rmmjs/statistics:StatisticsResourceAdaptor#allocationCounts',
        '@rmmjs/statistics:StatisticsResourceAdaptor#pushCounters',
        '@rmmjs/statistics:StatisticsResourceAdaptor#popCounters',
      ],
      [fc.constantFrom('read', 'push', 'pop', 'pop')],
      (world, call, entry, what) => {
        const exact = world.counting.isExact(entry.address);
        if (what === 'pop') {
          if (world.counting.stackKnown(entry.address) && world.counting.stackDepth(entry.address) === 1)
            call.invalid('range');
          else call.allow('range');
        }
        const result = call.run(() =>
          what === 'read'
            ? entry.mr.allocationCounts
            : what === 'push'
              ? entry.mr.pushCounters()
              : entry.mr.popCounters(),
        );
        if (!result.ok) return;
        const expected =
          what === 'read'
            ? world.counting.topPair(entry.address)
            : what === 'push'
              ? world.counting.push(entry.address)
              : world.counting.pop(entry.address);
        if (!(result.value instanceof world.P.statistics.Statistics))
          throw new FuzzFailure(`${what}: not a Statistics`);
        if (exact && expected !== undefined) {
          for (const key of Object.keys(expected)) {
            if (result.value[key] !== expected[key])
              throw new FuzzFailure(
                `StatisticsResourceAdaptor ${what}: ${key} is ${result.value[key]}, the model counted ${expected[key]}`,
              );
          }
        }
      },
      { of: 'StatisticsResourceAdaptor' },
    ),
    resourceMethod(
      'LoggingResourceAdaptor#flush',
      ['@rmmjs/logging:LoggingResourceAdaptor#flush', '@rmmjs/logging:LoggingResourceAdaptor#getFileName'],
      [fc.constant(0)],
      (world, call, entry) => {
        const result = call.run(() => {
          entry.mr.flush();
          return entry.mr.getFileName();
        });
        if (result.ok && typeof result.value !== 'string') throw new FuzzFailure('getFileName() is not a string');
      },
      { of: 'LoggingResourceAdaptor' },
    ),
  ];
}
