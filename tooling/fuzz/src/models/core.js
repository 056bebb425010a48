// @rmmjs/core's functions and small classes: parseBytes, the error classes, `cuda`, the
// registry, Stream and CudaStreamPool.
import fc from 'fast-check';
import { isHostileError } from '../hostile.js';
import { Call, FuzzFailure, boolean, func, integer, resource } from '../params.js';
import * as V from '../values.js';
import { optionsValue } from './resources.js';
import { finishingCopies, streamKey } from './device-buffer.js';

const core = '@rmmjs/core';

/** A device argument: a valid integer that may name no device fails in a documented way. */
function deviceArg(call, value, { min = 0, optional = false } = {}) {
  if (optional && value === undefined) return value;
  integer(call, value, min, 2 ** 31 - 1);
  if (typeof value === 'number' && Number.isInteger(value) && value >= Math.max(1, call.world.devices)) {
    call.allow('cuda', 'range', 'value', 'noDriver');
  }
  if (!call.world.P.core.cuda.isAvailable()) call.allow('noDriver', 'range');
  return value;
}

function simple(name, covers, args, run) {
  return {
    name,
    covers,
    args: fc.tuple(fc.constant(0), ...args),
    run: (world, [, ...rest]) => run(world, new Call(world, name), ...rest),
  };
}

// The error classes behave as Error does with the same message (a Symbol or a throwing toString
// fails the same way), take `code`/`cause` from their options, and are RMMError instances.
function errorModel(name) {
  return {
    name: `new ${name}`,
    covers: [`${core}:${name}.new`],
    args: fc.tuple(
      V.mixedString,
      V.options({
        code: V.mixedString,
        cause: V.hostile,
        cudaErrorCode: V.integerAmong(0, 2, 700),
        cudaErrorName: V.mixedString,
      }),
    ),
    run(world, [m, o]) {
      world.calls++;
      const Class = world.P.core[name];
      const flags = {};
      const message = world.resolve(m, flags);
      const optionsValue = world.resolve(o, flags);
      let expectedFailure;
      try {
        new Error(message);
      } catch (error) {
        expectedFailure = error;
      }
      let made;
      try {
        made = new Class(message, optionsValue);
      } catch (error) {
        if (isHostileError(error) || (flags.revoked && /revoked/.test(error?.message))) return;
        if (expectedFailure !== undefined && Object.getPrototypeOf(error) === Object.getPrototypeOf(expectedFailure))
          return;
        throw new FuzzFailure(`new ${name}: threw ${error?.constructor?.name} ${error?.code}: ${error?.message}`);
      }
      if (expectedFailure !== undefined && !isHostileError(expectedFailure)) {
        throw new FuzzFailure(`new ${name} accepted a message that Error refuses`);
      }
      if (!(made instanceof world.P.core.RMMError) || made.name !== name)
        throw new FuzzFailure(`new ${name}: ${made.name}`);
      if (flags.unstable || flags.throws) return; // its code cannot be read again
      const code = typeof optionsValue === 'object' && optionsValue !== null ? optionsValue.code : undefined;
      const defaults = { RMMError: 'ERR_RMM_LOGIC', OutOfMemoryError: 'ERR_RMM_OUT_OF_MEMORY', CudaError: 'ERR_CUDA' };
      const expected = name === 'OutOfMemoryError' ? defaults[name] : (code ?? defaults[name]);
      if (!Object.is(made.code, expected))
        // NaN is a code too
        throw new FuzzFailure(`new ${name}: code ${String(made.code)}, expected ${String(expected)}`);
    },
  };
}

const cudaFunctions = ['isAvailable', 'hostModeReason', 'getDeviceCount', 'getDevice', 'driverVersion'];

export default function coreModels() {
  return [
    simple(
      'parseBytes',
      [`${core}:parseBytes`],
      [
        fc.oneof(
          V.mixedString,
          V.hostile,
          fc.nat({ max: 1 << 20 }).map((n) => ({ unit: n })),
        ),
      ],
      (world, call, d) => {
        if ('unit' in d) {
          // Known answers: "<n>b", "<n> kib", "<n>kb".
          const n = d.unit;
          const { parseBytes } = world.P.core;
          const answers = [
            [`${n}b`, n],
            [`${n} kib`, n * 1024],
            [`${n}kb`, n * 1000],
            [`${n} MiB`, n * 1024 * 1024],
          ];
          for (const [text, bytes] of answers) {
            const result = call.run(() => parseBytes(text));
            if (!result.ok || result.value !== bytes)
              throw new FuzzFailure(`parseBytes('${text}') is ${result.value}, not ${bytes}`);
          }
          return;
        }
        const value = call.value(d);
        if (typeof value === 'number') {
          if (!Number.isSafeInteger(value) || value < 0) call.invalid('range');
        } else if (typeof value === 'string') {
          call.allow('value', 'range');
        } else call.invalid('type');
        const result = call.run(() => world.P.core.parseBytes(value));
        if (result.ok && (!Number.isSafeInteger(result.value) || result.value < 0)) {
          throw new FuzzFailure(`parseBytes(${String(value)}) gave ${result.value}`);
        }
      },
    ),
    errorModel('RMMError'),
    errorModel('OutOfMemoryError'),
    errorModel('CudaError'),
    simple(
      'cuda queries',
      cudaFunctions.map((f) => `${core}:cuda.${f}`),
      [],
      (world, call) => {
        const { cuda } = world.P.core;
        const result = call.run(() => cudaFunctions.map((f) => cuda[f]()));
        if (result.ok && result.value[0] !== (world.backend !== 'host'))
          throw new FuzzFailure('cuda.isAvailable() changed');
      },
    ),
    simple('cuda.setDevice', [`${core}:cuda.setDevice`], [V.device], (world, call, d) => {
      const device = call.value(d);
      deviceArg(call, device);
      call.run(() => world.P.core.cuda.setDevice(device));
    }),
    simple(
      'cuda device functions',
      [`${core}:cuda.synchronize`, `${core}:cuda.deviceName`, `${core}:cuda.getDefaultMemPool`],
      [
        fc.oneof(fc.constant({ lit: undefined }), V.device),
        fc.constantFrom('synchronize', 'deviceName', 'getDefaultMemPool'),
      ],
      (world, call, d, f) => {
        const device = call.value(d);
        deviceArg(call, device, { optional: true });
        if (world.backend === 'host') call.allow('noDriver', 'cuda');
        // A device's synchronisation finishes every asynchronous copy first.
        const finish = finishingCopies(world, f === 'synchronize' ? null : undefined);
        if (call.run(() => world.P.core.cuda[f](device)).ok) finish();
      },
    ),
    simple(
      'cuda.deviceAttribute',
      [`${core}:cuda.deviceAttribute`],
      [V.integerAmong(1, 16, 88, 115, 119, 100000), fc.oneof(fc.constant({ lit: undefined }), V.device)],
      (world, call, a, d) => {
        const attribute = call.value(a);
        integer(call, attribute, 0, 2 ** 31 - 1);
        const device = call.value(d);
        deviceArg(call, device, { optional: true });
        call.allow('cuda');
        if (world.backend === 'host') call.allow('noDriver');
        call.run(() => world.P.core.cuda.deviceAttribute(attribute, device));
      },
    ),
    simple(
      'cuda.lastPrefetchLocation',
      [`${core}:cuda.lastPrefetchLocation`],
      [fc.nat(), V.size, V.hostile, fc.boolean()],
      (world, call, i, n, h, useHostile) => {
        const live = world.allocations.filter((a) => !a.freed && a.ptr !== 0n);
        let ptr = live.length === 0 ? 0n : live[i % live.length].ptr;
        if (useHostile) {
          ptr = call.value(h);
          if (typeof ptr !== 'bigint') call.invalid('type');
          else if (ptr < 0n || ptr >= 2n ** 64n) call.invalid('range');
          else return; // a wild address
        }
        const nbytes = call.value(n);
        if (typeof nbytes !== 'number') call.invalid('type');
        else if (!Number.isSafeInteger(nbytes) || nbytes < 0) call.invalid('range');
        call.allow('cuda', 'noDriver', 'value', 'range'); // 0 bytes, or a range beyond the allocation
        const result = call.run(() => world.P.core.cuda.lastPrefetchLocation(ptr, nbytes));
        if (result.ok && !Number.isInteger(result.value))
          throw new FuzzFailure('lastPrefetchLocation is not an integer');
      },
    ),
    simple(
      'getCurrentDeviceResource',
      [
        `${core}:getCurrentDeviceResource`,
        `${core}:getCurrentDeviceResourceType`,
        `${core}:isInitialized`,
        `${core}:availableDeviceMemory`,
      ],
      [],
      (world, call) => {
        const { core: c } = world.P;
        const result = call.run(() => [
          c.getCurrentDeviceResource(),
          c.getCurrentDeviceResourceType(),
          c.isInitialized(),
          c.availableDeviceMemory(),
        ]);
        if (!result.ok) return;
        const [mr, type, initialized, memory] = result.value;
        world.adoptResource(mr);
        if (mr.constructor !== type)
          throw new FuzzFailure('getCurrentDeviceResourceType() is not the class of the current resource');
        if (initialized !== true || !Array.isArray(memory) || memory.length !== 2)
          throw new FuzzFailure('isInitialized/availableDeviceMemory');
      },
    ),
    simple('setCurrentDeviceResource', [`${core}:setCurrentDeviceResource`], [V.resource], (world, call, d) => {
      const { core: c } = world.P;
      const { value } = resource(call, d);
      const before = c.getCurrentDeviceResource();
      world.adoptResource(before);
      const result = call.run(() => c.setCurrentDeviceResource(value));
      if (!result.ok) return;
      world.adoptResource(result.value);
      if (result.value !== before)
        throw new FuzzFailure('setCurrentDeviceResource did not return the previous resource');
      if (c.getCurrentDeviceResource() !== value)
        throw new FuzzFailure('getCurrentDeviceResource() !== the resource just set');
    }),
    simple(
      'per-device registry',
      [`${core}:getPerDeviceResource`, `${core}:getPerDeviceResourceType`, `${core}:setPerDeviceResource`],
      [V.device, fc.oneof(fc.constant(undefined), V.resource)],
      (world, call, d, r) => {
        const { core: c } = world.P;
        const device = call.value(d);
        deviceArg(call, device);
        if (r === undefined) {
          const result = call.run(() => [c.getPerDeviceResource(device), c.getPerDeviceResourceType(device)]);
          if (result.ok) {
            world.adoptResource(result.value[0]);
            if (result.value[0].constructor !== result.value[1]) throw new FuzzFailure('getPerDeviceResourceType');
          }
          return;
        }
        const { value } = resource(call, r);
        const result = call.run(() => c.setPerDeviceResource(device, value));
        if (result.ok) world.adoptResource(result.value);
      },
    ),
    simple(
      'reinitialize hooks',
      [`${core}:registerReinitializeHook`, `${core}:unregisterReinitializeHook`],
      [V.callback(fc.constant({ fn: true })), fc.boolean()],
      (world, call, f, unregister) => {
        const fn = 'fn' in f ? () => {} : call.value(f);
        func(call, fn);
        const { core: c } = world.P;
        const result = call.run(() =>
          unregister ? c.unregisterReinitializeHook(fn) : c.registerReinitializeHook(fn, 1, 'two'),
        );
        if (result.ok && !unregister) {
          if (result.value !== fn) throw new FuzzFailure('registerReinitializeHook did not return its function');
          world.hooks.push(fn);
        }
      },
    ),
    simple(
      'new Stream',
      [`${core}:Stream.new`],
      [V.options({ nonBlocking: V.bool, priority: V.integerAmong(0, -1, 1, -5, 2 ** 31) })],
      (world, call, o) => {
        const value = optionsValue(call, o, {
          nonBlocking: boolean,
          priority: (c, v) => v === undefined || integer(c, v, -(2 ** 31), 2 ** 31 - 1),
        });
        if (world.backend !== 'host') call.allow('cuda');
        const result = call.run(() => new world.P.core.Stream(value));
        if (result.ok) world.addStream(result.value, true);
      },
    ),
    simple(
      'Stream.fromHandle',
      [`${core}:Stream.fromHandle`],
      [fc.nat(), fc.oneof(fc.constant(undefined), V.hostile), fc.boolean()],
      (world, call, i, h, asNumber) => {
        let handle;
        let owner;
        if (h === undefined) {
          const live = world.streams.filter((e) => !e.disposed && e.owned);
          owner = live[i % Math.max(1, live.length)];
          handle = owner?.stream.handle ?? BigInt(i % 3);
          if (asNumber && handle <= BigInt(Number.MAX_SAFE_INTEGER)) handle = Number(handle);
        } else {
          handle = call.value(h);
          if (typeof handle === 'number') {
            if (!Number.isSafeInteger(handle) || handle < 0) call.invalid('range');
            else if (handle > 2) return; // a wild handle
          } else if (typeof handle === 'bigint') {
            if (handle < 0n || handle >= 2n ** 64n) call.invalid('range');
            else if (handle > 2n) return;
          } else call.invalid('type');
        }
        const result = call.run(() => world.P.core.Stream.fromHandle(handle));
        if (result.ok) {
          world.addStream(result.value, false).owner = owner;
          if (result.value.handle !== BigInt(handle)) throw new FuzzFailure('Stream.fromHandle(h).handle !== h');
        }
      },
    ),
    simple(
      'Stream methods',
      ['handle', 'device', 'synchronize', 'isDefault', 'equals', 'toString', '[Symbol.dispose]'].map(
        (m) => `${core}:Stream#${m}`,
      ),
      [
        fc.nat(),
        V.stream,
        fc.constantFrom('handle', 'device', 'synchronize', 'isDefault', 'equals', 'toString', 'dispose'),
      ],
      (world, call, i, other, what) => {
        const usable = world.usableStreams();
        const entry = usable[i % Math.max(1, usable.length)];
        if (entry === undefined) return;
        const { stream: s } = entry;
        const otherValue = call.value(other);
        if (entry.disposed && !['dispose', 'equals', 'toString', 'isDefault'].includes(what)) call.invalid('disposed');
        if (entry.disposed) call.allow('disposed');
        if (world.backend !== 'host') call.allow('cuda');
        const finish = finishingCopies(world, what === 'synchronize' && !entry.disposed ? streamKey(s) : undefined);
        const result = call.run(() => {
          switch (what) {
            case 'dispose':
              return s[Symbol.dispose]();
            case 'equals':
              return s.equals(otherValue);
            case 'toString':
              return String(s);
            default:
              return typeof s[what] === 'function' ? s[what]() : s[what];
          }
        });
        if (!result.ok) return;
        finish();
        if (what === 'dispose') {
          entry.disposed = true;
          for (const e of world.streams) if (e.owner === entry) e.disposed = true;
        }
        if (what === 'handle' && typeof result.value !== 'bigint')
          throw new FuzzFailure('Stream#handle is not a bigint');
        const otherEntry = world.streamEntry(otherValue);
        if (what === 'equals' && !entry.disposed && (otherEntry === undefined || !otherEntry.disposed)) {
          const equal = otherEntry !== undefined && otherValue.handle === s.handle;
          if (result.value !== equal)
            throw new FuzzFailure(`Stream#equals is ${result.value}, the handles say ${equal}`);
        }
      },
    ),
    simple('Stream#synchronizeAsync', [`${core}:Stream#synchronizeAsync`], [fc.nat()], (world, call, i) => {
      const entry = world.streams[i % Math.max(1, world.streams.length)];
      if (entry === undefined || (entry.owner !== undefined && entry.owner.disposed)) return;
      if (entry.disposed) call.invalid('disposed');
      if (world.backend !== 'host') call.allow('cuda');
      world.track(call.runAsync(() => entry.stream.synchronizeAsync()));
    }),
    simple(
      'default streams',
      [`${core}:DEFAULT_STREAM`, `${core}:LEGACY_DEFAULT_STREAM`, `${core}:PER_THREAD_DEFAULT_STREAM`],
      [fc.constantFrom(0, 1, 2)],
      (world, call, which) => {
        const { core: c } = world.P;
        const s = [c.DEFAULT_STREAM, c.LEGACY_DEFAULT_STREAM, c.PER_THREAD_DEFAULT_STREAM][which];
        const finish = finishingCopies(world, streamKey(s));
        const result = call.run(() => {
          s[Symbol.dispose](); // shared: disposing does nothing
          s.synchronize();
          return [s.handle, s.isDefault()];
        });
        if (result.ok) finish();
        if (result.ok && (result.value[0] !== BigInt(which) || !result.value[1]))
          throw new FuzzFailure('a default stream changed');
      },
    ),
    simple(
      'new CudaStreamPool',
      [`${core}:CudaStreamPool.new`],
      [V.options({ poolSize: V.integerAmong(1, 2, 3, 0, 2 ** 21), nonBlocking: V.bool })],
      (world, call, o) => {
        const value = optionsValue(call, o, {
          poolSize: (c, v) => {
            if (v === undefined) return;
            integer(c, v, 0, 1 << 20);
            if (v === 0) c.invalid('logic');
          },
          nonBlocking: (c, v) => v === undefined || boolean(c, v),
        });
        if (world.backend !== 'host') call.allow('cuda');
        const result = call.run(() => new world.P.core.CudaStreamPool(value));
        if (result.ok) world.streamPools.push(result.value);
      },
    ),
    simple(
      'CudaStreamPool methods',
      ['getStream', 'getPoolSize', '[Symbol.dispose]'].map((m) => `${core}:CudaStreamPool#${m}`),
      [
        fc.nat(),
        fc.oneof(fc.constant({ lit: undefined }), V.integerAmong(0, 1, 5, 2 ** 53 - 1, -1)),
        fc.constantFrom('get', 'get', 'size', 'dispose'),
      ],
      (world, call, i, id, what) => {
        const pool = world.streamPools[i % Math.max(1, world.streamPools.length)];
        if (pool === undefined) return;
        const streamId = call.value(id);
        if (what === 'get' && streamId !== undefined) integer(call, streamId, 0, Number.MAX_SAFE_INTEGER);
        const result = call.run(() =>
          what === 'get' ? pool.getStream(streamId) : what === 'size' ? pool.getPoolSize() : pool[Symbol.dispose](),
        );
        if (!result.ok) return;
        if (what === 'get') {
          const known = world.streams.find((e) => e.stream === result.value);
          // A disposed pool's streams are disposed.
          if (known === undefined)
            Object.assign(world.addStream(result.value, false), { pool, disposed: world.disposedPools.has(pool) });
        }
        if (what === 'dispose') {
          world.disposedPools.add(pool);
          for (const e of world.streams) if (e.pool === pool) e.disposed = true;
        }
      },
    ),
  ];
}
