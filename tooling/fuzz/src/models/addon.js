// @rmmjs/core/addon, the entry point of third-party addons, and methods called on the wrong
// receiver (a resource of another class, a plain object, a Proxy).
import fc from 'fast-check';
import { types } from 'node:util';
import { isHostileError } from '../hostile.js';
import { Call, FuzzFailure, buffer, integer, kindOf, options, stream } from '../params.js';
import * as V from '../values.js';
import { pick, unknownBytes } from '../world.js';

const pkg = '@rmmjs/core/addon';

export default function addonModels() {
  return [
    {
      name: 'makeError',
      covers: [`${pkg}:makeError`, `${pkg}:holdJsException`, `${pkg}:coreApi`, `${pkg}:abiVersion`],
      args: fc.tuple(
        V.integerAmong(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, -1),
        V.mixedString,
        V.integerAmong(0, 2, 700, 999999),
        fc.oneof(fc.constant({ lit: undefined }), V.mixedString),
        fc.boolean(),
      ),
      run(world, [s, m, c, n, hold]) {
        const { addon } = world.P;
        const call = new Call(world, 'makeError');
        const status = call.value(s);
        const message = call.value(m);
        const cudaCode = call.value(c);
        const nodeCode = call.value(n);
        integer(call, status, -(2 ** 31), 2 ** 31 - 1);
        if (typeof message !== 'string') call.invalid('type');
        integer(call, cudaCode, -(2 ** 31), 2 ** 31 - 1);
        if (nodeCode !== undefined && typeof nodeCode !== 'string') call.invalid('type');
        if (typeof addon.abiVersion !== 'string' || typeof addon.coreApi !== 'object')
          throw new FuzzFailure('coreApi/abiVersion');
        const held = new Error('held');
        if (hold) addon.holdJsException(held);
        const result = call.run(() => addon.makeError(status, message, cudaCode, nodeCode));
        if (hold) world.P.internal.takeHeldJsException(); // not left for a later call, whatever happened
        if (!result.ok) return;
        const error = result.value;
        if (hold && status === 10) {
          if (error !== held) throw new FuzzFailure('makeError(JS exception) is not the held error');
          return;
        }
        if ((status === 4 || status === 5) && nodeCode !== undefined) {
          // An addon names the Node code of its argument errors itself.
          const Class = status === 4 ? TypeError : RangeError;
          if (!(error instanceof Class) || error.code !== nodeCode)
            throw new FuzzFailure(`makeError(${status}, .., '${nodeCode}') made ${error?.code}`);
          return;
        }
        if (!(error instanceof Error) || kindOf(error, world.P.core) === null) {
          throw new FuzzFailure(
            `makeError(${status}) made an undocumented error: ${error?.constructor?.name} ${error?.code}`,
          );
        }
      },
    },
    {
      name: 'loadAddon',
      covers: [`${pkg}:loadAddon`],
      args: fc.tuple(
        fc.oneof(fc.constant({ lit: import.meta.url }), V.mixedString, V.hostile),
        fc.oneof(
          fc.constantFrom('missing', './missing/addon/').map((lit) => ({ lit })),
          V.hostile,
        ),
        V.mixedString,
      ),
      run(world, [u, p, n]) {
        const call = new Call(world, 'loadAddon');
        const url = call.value(u);
        const path = call.value(p);
        const name = call.value(n);
        if (typeof path === 'string' && !['missing', './missing/addon/'].includes(path)) return; // only directories without an addon
        if (typeof url !== 'string' || typeof path !== 'string' || typeof name !== 'string') call.invalid('type');
        else if (!url.startsWith('file:')) call.invalid('value');
        try {
          world.P.addon.loadAddon(url, path, name);
        } catch (error) {
          world.calls++;
          // A directory without an addon: the documented error that lists the fixes.
          if (
            call.required.size === 0 &&
            error instanceof world.P.core.RMMError &&
            error.code === 'ERR_RMM_ADDON_LOAD_FAILED' &&
            /^Could not load the native addon/.test(error.message)
          )
            return;
          call.checkError(error);
          return;
        }
        throw new FuzzFailure('loadAddon loaded a file that does not exist');
      },
    },
    {
      name: 'resourceHandle, wrapResource, registerResourceClass',
      covers: [`${pkg}:resourceHandle`, `${pkg}:wrapResource`, `${pkg}:registerResourceClass`],
      args: fc.tuple(
        V.resource,
        V.mixedString,
        fc.constantFrom('handle', 'wrapHostile', 'wrapDisposed', 'register'),
        V.hostile,
        fc.constantFrom('fresh', 'PoolMemoryResource', 'LimitingResourceAdaptor'),
      ),
      run(world, [r, n, what, h, typeName]) {
        const { addon } = world.P;
        const call = new Call(world, what);
        switch (what) {
          case 'handle': {
            const value = call.value(r);
            const entry = world.resourceEntry(value);
            if (entry === undefined) call.invalid('type');
            const name = call.value(n);
            const result = call.run(() => addon.resourceHandle(value, typeof name === 'string' ? name : 'mr'));
            if (result.ok && typeof result.value !== 'object') throw new FuzzFailure('resourceHandle');
            return;
          }
          case 'wrapHostile': {
            // wrapResource adopts a reference native code made; only what cannot be one is passed here.
            const value = call.value(h);
            call.invalid('type');
            call.run(() => addon.wrapResource(value));
            return;
          }
          case 'wrapDisposed': {
            const disposed = world.resources.filter((e) => e.disposed);
            if (disposed.length === 0) return;
            call.invalid('disposed');
            call.run(() => addon.wrapResource(addon.resourceHandle(disposed[0].mr, 'mr')));
            return;
          }
          case 'register': {
            // A junk class is refused (it would break wrapping every resource of that type).
            const Class = call.value(h);
            call.invalid('type');
            const name = typeName === 'fresh' ? `FuzzResource${world.calls}` : typeName;
            call.run(() => addon.registerResourceClass(name, Class));
            return;
          }
        }
      },
    },
    {
      name: 'holdMemory',
      covers: [`${pkg}:holdMemory`],
      args: V.buffer,
      run(world, b) {
        const call = new Call(world, 'holdMemory');
        const { value, entry } = buffer(call, b);
        call.flags.proxyOfLive = false; // a Proxy is not a DeviceBuffer: ERR_INVALID_ARG_TYPE, never V8's TypeError
        const size = entry?.expected.length;
        const result = call.run(() => world.P.addon.holdMemory(value));
        if (!result.ok) return;
        if (typeof result.value !== 'object' || result.value === null) throw new FuzzFailure('holdMemory: no handle');
        // The memory stays until the handle lets go, also after the buffer's free(): counters can't follow.
        world.counting.inexact(entry.address);
        world.memoryHandles.push({ handle: result.value, taken: false, size, source: entry });
      },
    },
    {
      name: 'adoptMemory',
      covers: [`${pkg}:adoptMemory`],
      args: fc.tuple(
        fc.oneof({ weight: 6, arbitrary: fc.nat().map((i) => ({ held: i })) }, { weight: 1, arbitrary: V.hostile }),
        V.options({ stream: V.stream }),
      ),
      run(world, [h, o]) {
        const call = new Call(world, 'adoptMemory');
        let held;
        let handle;
        if ('held' in h) {
          held = pick(world.memoryHandles, h.held);
          if (held === undefined) return;
          handle = held.handle;
          if (held.taken === true) call.invalid('disposed');
          else if (held.taken === 'maybe') call.allow('disposed');
        } else {
          handle = call.value(h);
          call.invalid('type');
        }
        call.flags.proxyOfLive = false;
        let optionsValue = call.value(o);
        if (options(call, optionsValue) && 'o' in o) {
          optionsValue = {};
          if (o.o.stream !== undefined) optionsValue.stream = stream(call, o.o.stream).value;
        } else if (optionsValue !== undefined && typeof optionsValue === 'object') call.allow('type', 'disposed');
        call.allow('noDriver', 'cuda'); // the memory's device, checked by the driver
        const result = call.run(() => world.P.addon.adoptMemory(handle, optionsValue));
        if (held === undefined) return;
        if (!result.ok) {
          // Refused before the handle was read (an option), or taken and released: the teardown tells.
          if (!['type', 'disposed', 'hostile', 'revoked', 'privateMember'].includes(result.kind)) held.taken = 'maybe';
          return;
        }
        held.taken = true;
        const buf = result.value;
        if (buf.size !== held.size) throw new FuzzFailure(`adoptMemory: ${buf.size} bytes, ${held.size} were held`);
        // The same memory as the buffer it was held from: its bytes are both's; its free() lets go of the
        // share, and what it grows into comes from its device's resource: counters cannot follow either.
        const entry = world.addBuffer(buf, unknownBytes(held.size), { counted: false });
        entry.share();
        held.source.share();
        world.counting.inexact(entry.address);
      },
    },
    {
      name: 'guardBuffer',
      covers: [`${pkg}:guardBuffer`],
      args: fc.tuple(
        V.buffer,
        fc.oneof(
          V.hostile,
          fc.nat().map((i) => ({ held: i })),
        ),
      ),
      run(world, [b, g]) {
        // Guards come from native code only: anything JavaScript has is refused (a memory handle too).
        const call = new Call(world, 'guardBuffer');
        const { value } = buffer(call, b);
        const guard = 'held' in g ? pick(world.memoryHandles, g.held)?.handle : call.value(g);
        call.flags.proxyOfLive = false;
        call.invalid('type');
        call.run(() => world.P.addon.guardBuffer(value, guard));
      },
    },
    {
      name: 'a method on the wrong receiver',
      covers: [],
      args: fc.tuple(
        fc.nat(),
        fc.nat(),
        fc.oneof(
          fc.nat().map((i) => ({ r: 'resource', i })),
          fc.nat().map((i) => ({ r: 'buffer', i })),
          V.hostile,
        ),
      ),
      async run(world, [m, k, r]) {
        const method = world.receiverMethods[m % world.receiverMethods.length];
        const call = new Call(world, `${method.className}#${method.key} on the wrong receiver`);
        const self = call.value(r);
        if (self === undefined || self === null) return; // not a receiver test
        if (!types.isProxy(self) && self instanceof method.Class) return; // not wrong
        // Both async resources' poolHandle() ask core for the pool of an async resource: either one answers.
        const { CudaAsyncMemoryResource, CudaAsyncViewMemoryResource } = world.P.core;
        const asyncPool = (value) =>
          value instanceof CudaAsyncMemoryResource || value instanceof CudaAsyncViewMemoryResource;
        if (method.key === 'poolHandle' && !types.isProxy(self) && asyncPool(self)) return;
        world.calls++;
        try {
          const argument = method.key === 'allocate' || method.key === 'deallocate' ? 0 : 256 * (1 + (k % 4));
          const result = method.getter
            ? Reflect.apply(method.fn, self, [])
            : Reflect.apply(method.fn, self, [argument]);
          if (method.native) throw new FuzzFailure(`${method.className}#${method.key} ran on a ${describe(self)}`);
          if (types.isPromise(result)) await result;
        } catch (error) {
          if (error instanceof FuzzFailure) throw error;
          if (isHostileError(error)) return; // a Proxy's trap threw: its own error
          const kind = kindOf(error, world.P.core);
          // A method of a JavaScript class on another object fails as JavaScript does (a TypeError
          // without a code, like Map.prototype.get.call({})); one that reaches native code must
          // refuse it first: ERR_INVALID_ARG_TYPE, or the private field it reads.
          const bareTypeError = Object.getPrototypeOf(error) === TypeError.prototype && error.code === undefined;
          const privateField = bareTypeError && /private member|revoked/.test(error.message);
          // A disposed resource, or a freed buffer whose getters a method of another class read.
          const disposedResource =
            kind === 'disposed' &&
            (world.resourceEntry(self)?.disposed === true ||
              (!method.native && world.bufferEntry(self)?.freed === true));
          if (
            kind !== 'type' &&
            kind !== 'revoked' &&
            !privateField &&
            !disposedResource &&
            !(bareTypeError && !method.native)
          ) {
            throw new FuzzFailure(
              `${method.className}#${method.key} on a ${describe(self)}: ${error?.constructor?.name} ${error?.code}: ${error?.message}`,
            );
          }
        }
      },
    },
  ];
}

function describe(value) {
  if (types.isProxy(value)) return 'Proxy';
  return typeof value === 'object' ? (value?.constructor?.name ?? 'object') : typeof value;
}

/** The prototype methods and getters of every class that keeps native or private state. */
export function receiverMethods(P) {
  const methods = [];
  for (const [className, Class] of Object.entries(P.byName)) {
    if (typeof Class !== 'function' || !Class.prototype) continue;
    const isResource = Class.prototype instanceof P.core.DeviceMemoryResource || Class === P.core.DeviceMemoryResource;
    const hasPrivateState = [
      P.core.DeviceBuffer,
      P.core.Stream,
      P.core.CudaStreamPool,
      P.statistics.ProfilerRecords,
      P.statistics.StatisticsScope,
      P.statistics.ProfileScope,
    ].includes(Class);
    if (!isResource && !hasPrivateState) continue;
    for (const key of Reflect.ownKeys(Class.prototype)) {
      if (key === 'constructor') continue;
      const descriptor = Object.getOwnPropertyDescriptor(Class.prototype, key);
      const fn = descriptor.get ?? descriptor.value;
      if (typeof fn !== 'function') continue;
      // Methods of resources reach native code: they must refuse another receiver. toString and
      // dispose of plain JavaScript state may run on anything that has what they read.
      const native =
        isResource && !['toString', 'getUpstream', 'allocate', 'deallocate'].includes(key) && key !== Symbol.dispose;
      methods.push({ Class, className, key: String(key), fn, getter: descriptor.get !== undefined, native });
    }
  }
  return methods;
}

export { isHostileError };
