// @rmmjs/emm-plugin: RMMExternalMemoryManager (Numba's EMM interface) and the memory it hands out:
// device memory from the current resource of its device (counted like any allocation), managed
// and page-locked memory from the driver (given back by free(), reset() or the teardown), views,
// deferCleanup scopes, and hostAddress.
import { types } from 'node:util';
import fc from 'fast-check';
import { allBytesAre, bytesOf, hostBytes, isHostileError } from '../hostile.js';
import { Call, FuzzFailure, boolean, integer, options, size } from '../params.js';
import * as V from '../values.js';
import { pick } from '../world.js';

const pkg = '@rmmjs/emm-plugin';
const MM = `${pkg}:RMMExternalMemoryManager`;

/** The world's managers and what they handed out. */
function emm(world) {
  world.emm ??= { managers: [], memory: [], scopes: [] };
  return world.emm;
}

/** Runs fn; an AggregateError (several releases failed) is checked error by error. */
function runReleasing(call, fn) {
  return call.run(() => {
    try {
      return fn();
    } catch (error) {
      if (!(error instanceof AggregateError) || isHostileError(error)) throw error;
      for (const inner of error.errors) call.checkError(inner);
      throw error.errors[0];
    }
  });
}

/** The allocations of memalloc go through the device's resource: its kinds, and whether JavaScript runs. */
function deviceResource(world, call, device) {
  const { core } = world.P;
  let mr;
  try {
    mr = core.getPerDeviceResource(device);
  } catch {
    return undefined;
  }
  const entry = world.resourceEntry(mr);
  if (entry?.address !== undefined && world.counting.reachesJs(entry.address))
    call.allow('hostile', 'type', 'range', 'logic', 'disposed', 'value', 'wrongThread', 'cuda');
  return entry;
}

/** A memory record is given back: its counters, and every view of it. */
function released(world, record) {
  if (record.freed) return;
  record.freed = true;
  if (record.kind === 'device') world.counting.deallocated(record.address, record.size);
}

/** After a call that may have freed some memory (reset, a scope, a release that failed part way): each record from the object. */
function resync(world, manager) {
  for (const record of emm(world).memory) {
    if (record.view || (manager !== undefined && record.manager !== manager) || record.freed) continue;
    if (record.memory.freed) released(world, record);
  }
}

function pickManager(world, i) {
  return pick(emm(world).managers, i);
}

function pickMemory(world, i, filter = () => true) {
  return pick(emm(world).memory.filter(filter), i);
}

function handOut(world, manager, memory, kind, extra = {}) {
  const record = { memory, manager, kind, size: extra.size, freed: false, view: false, ...extra };
  emm(world).memory.push(record);
  return record;
}

const hostKinds = ['pinned', 'mapped', 'pin'];

// A DataView past the end of its shrunk buffer: reading where it starts throws.
function outOfBounds(view) {
  try {
    return ArrayBuffer.isView(view) && view.byteOffset + view.byteLength < 0;
  } catch {
    return true;
  }
}

function isDetached(buffer) {
  if (!types.isArrayBuffer(buffer)) return false;
  try {
    new Uint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}

export default function emmModels() {
  return [
    {
      name: 'new RMMExternalMemoryManager',
      covers: [`${MM}.new`, `${MM}#device`, `${MM}#interfaceVersion`, `${MM}#initialize`],
      args: V.options({ device: V.device }),
      run(world, o) {
        const call = new Call(world, 'new RMMExternalMemoryManager');
        let value = call.value(o);
        let device;
        if (options(call, value) && 'o' in o) {
          value = {};
          if (o.o.device !== undefined) value.device = call.value(o.o.device);
          if (value.device !== undefined) integer(call, value.device, 0, world.devices - 1);
          device = value.device;
        } else if (value !== undefined) call.allow('type', 'range');
        const result = call.run(() => new world.P.emmPlugin.RMMExternalMemoryManager(value));
        if (!result.ok) return;
        const manager = result.value;
        const expected = device ?? (world.P.core.cuda.isAvailable() ? world.P.core.cuda.getDevice() : 0);
        if ('o' in o && manager.device !== expected)
          throw new FuzzFailure(`RMMExternalMemoryManager#device is ${manager.device}, not ${expected}`);
        if (manager.interfaceVersion !== 1) throw new FuzzFailure('interfaceVersion is not 1');
        const init = new Call(world, 'RMMExternalMemoryManager#initialize');
        init.run(() => {
          manager.initialize();
          manager.initialize(); // any number of times
        });
        emm(world).managers.push(manager);
        // Everything it handed out goes back at the teardown (after the scopes opened later close).
        world.addCleanup('RMMExternalMemoryManager#reset', () => {
          manager.reset();
          resync(world, manager);
        });
      },
    },
    {
      name: 'RMMExternalMemoryManager#memalloc',
      covers: [`${MM}#memalloc`],
      args: fc.tuple(fc.nat(), V.size),
      run(world, [i, n]) {
        const manager = pickManager(world, i);
        if (manager === undefined) return;
        const call = new Call(world, 'RMMExternalMemoryManager#memalloc');
        const nbytes = call.value(n);
        size(call, nbytes);
        const entry = deviceResource(world, call, manager.device);
        call.allow('oom');
        if (world.backend !== 'host') call.allow('cuda');
        const result = call.run(() => manager.memalloc(nbytes));
        if (!result.ok) return;
        const memory = result.value;
        const address = world.resourceEntry(memory.buffer.mr)?.address;
        world.counting.allocated(address, nbytes);
        handOut(world, manager, memory, 'device', { size: nbytes, address });
        if (
          memory.size !== nbytes ||
          memory.device !== manager.device ||
          memory.offset !== 0 ||
          memory.owner !== memory
        )
          throw new FuzzFailure('memalloc: a MemoryPointer of another size, device or owner');
        if (memory.ptr !== memory.buffer.ptr || memory.buffer.size !== nbytes)
          throw new FuzzFailure("memalloc: ptr is not its DeviceBuffer's");
        if (address !== entry?.address && entry?.address !== undefined)
          throw new FuzzFailure("memalloc: not from the current resource of the manager's device");
      },
    },
    {
      name: 'RMMExternalMemoryManager#memallocmanaged',
      covers: [`${MM}#memallocmanaged`, `${pkg}:ManagedMemory#attachGlobal`],
      args: fc.tuple(
        fc.nat(),
        V.sizeAmong(0, 1, 256, 4096, 65536, 2 ** 50),
        fc.oneof(fc.constant({ lit: undefined }), V.bool),
      ),
      run(world, [i, n, g]) {
        const manager = pickManager(world, i);
        if (manager === undefined) return;
        const call = new Call(world, 'RMMExternalMemoryManager#memallocmanaged');
        const nbytes = call.value(n);
        size(call, nbytes);
        const attachGlobal = call.value(g);
        if (attachGlobal !== undefined) boolean(call, attachGlobal);
        call.allow('oom', 'cuda'); // the driver's answer
        const result = call.run(() => manager.memallocmanaged(nbytes, attachGlobal));
        if (!result.ok) return;
        handOut(world, manager, result.value, 'managed', { size: nbytes });
        if (!(result.value instanceof world.P.emmPlugin.ManagedMemory)) throw new FuzzFailure('not a ManagedMemory');
        if (result.value.attachGlobal !== (attachGlobal ?? true) || result.value.size !== nbytes)
          throw new FuzzFailure('memallocmanaged: attachGlobal or size');
      },
    },
    {
      name: 'RMMExternalMemoryManager#memhostalloc',
      covers: [`${MM}#memhostalloc`],
      args: fc.tuple(
        fc.nat(),
        V.sizeAmong(0, 1, 100, 4096, 65536, 2 ** 50),
        V.options({ mapped: V.bool, portable: V.bool, wc: V.bool }),
        fc.integer({ min: 1, max: 255 }),
      ),
      run(world, [i, n, o, seed]) {
        const manager = pickManager(world, i);
        if (manager === undefined) return;
        const call = new Call(world, 'RMMExternalMemoryManager#memhostalloc');
        const nbytes = call.value(n);
        size(call, nbytes);
        let value = call.value(o);
        let mapped = false;
        if (options(call, value) && 'o' in o) {
          value = {};
          for (const key of ['mapped', 'portable', 'wc']) {
            if (o.o[key] === undefined) continue;
            value[key] = call.value(o.o[key]);
            if (value[key] !== undefined) boolean(call, value[key]);
          }
          mapped = value.mapped === true;
        } else if (value !== undefined) call.allow('type');
        call.allow('oom', 'cuda');
        const result = call.run(() => manager.memhostalloc(nbytes, value));
        if (!result.ok) return;
        const memory = result.value;
        const { PinnedMemory, MappedMemory } = world.P.emmPlugin;
        handOut(world, manager, memory, memory instanceof MappedMemory ? 'mapped' : 'pinned', { size: nbytes });
        if ('o' in o && !(memory instanceof (mapped ? MappedMemory : PinnedMemory)))
          throw new FuzzFailure(`memhostalloc: a ${memory.constructor.name}, mapped: ${mapped}`);
        // Its bytes are the page-locked memory itself: they hold what is written.
        const bytes = memory.bytes;
        if (bytes.length !== nbytes || memory.hostOwner !== null)
          throw new FuzzFailure('memhostalloc: bytes or hostOwner');
        // Its first and last MiB (a hostile size may be a valid GiB: touching all of it costs seconds).
        const ends = bytes.length <= 2 << 20 ? [bytes] : [bytes.subarray(0, 1 << 20), bytes.subarray(-(1 << 20))];
        for (const end of ends) {
          end.fill(seed);
          if (!allBytesAre(end, seed)) throw new FuzzFailure('memhostalloc: its bytes do not keep what was written');
        }
      },
    },
    {
      name: 'RMMExternalMemoryManager#mempin',
      covers: [`${MM}#mempin`, `${pkg}:hostAddress`],
      args: fc.tuple(
        fc.nat(),
        // Mostly what it pins (a SharedArrayBuffer or a view of one), else any host bytes or hostile.
        fc.oneof({ weight: 2, arbitrary: hostBytes.map((bytes) => ({ ...bytes, over: 'shared' })) }, V.host),
        fc.oneof(
          fc.constant({ lit: undefined }),
          fc.integer({ min: 0, max: 80 }).map((k) => ({ offset: k })),
          fc.integer({ min: -8, max: 80 }).map((k) => ({ address: k })),
          V.hostile,
        ),
        fc.oneof(fc.constant({ lit: undefined }), V.sizeAmong(0, 1, 8, 64, 4096)),
        V.options({ mapped: V.bool }),
      ),
      run(world, [i, h, p, n, o]) {
        const manager = pickManager(world, i);
        if (manager === undefined) return;
        const call = new Call(world, 'RMMExternalMemoryManager#mempin');
        const owner = call.value(h);
        // The owner's bytes: a SharedArrayBuffer that cannot grow. An ArrayBuffer's memory could be
        // transferred to a worker and freed with it while pinned (resizable, detached or not).
        const isBuffer = types.isArrayBuffer(owner) || types.isSharedArrayBuffer(owner);
        let length;
        let address;
        if (!isBuffer && !ArrayBuffer.isView(owner)) call.invalid('type');
        else {
          const buffer = isBuffer ? owner : owner.buffer;
          const detached = isDetached(buffer);
          if (!types.isSharedArrayBuffer(buffer) || buffer.growable) call.invalid('value');
          else length = bytesOf(owner).length;
          const where = new Call(world, 'hostAddress');
          if (detached || outOfBounds(owner)) where.invalid('value'); // it has no address
          const result = where.run(() => world.P.emmPlugin.hostAddress(owner));
          if (result.ok && typeof result.value !== 'bigint') throw new FuzzFailure('hostAddress is not a bigint');
          if (result.ok) address = result.value;
        }
        let pointer;
        let offset = 0;
        if ('offset' in p) pointer = offset = p.offset;
        else if ('address' in p) {
          if (address === undefined) return;
          pointer = address + BigInt(p.address);
          offset = p.address;
        } else {
          pointer = call.value(p);
          if (pointer !== undefined) {
            if (typeof pointer === 'number') offset = size(call, pointer);
            else if (typeof pointer !== 'bigint') call.invalid('type');
            else if (length !== undefined) return; // some address: inside the owner or not, by chance
          }
        }
        if (length !== undefined && (offset < 0 || offset > length)) call.invalid('range');
        const nbytes = call.value(n);
        if (nbytes !== undefined) size(call, nbytes);
        const region = nbytes ?? (length === undefined ? undefined : length - offset);
        if (length !== undefined && typeof region === 'number' && region > length - offset) call.invalid('range');
        let value = call.value(o);
        if (options(call, value) && 'o' in o) {
          value = {};
          if (o.o.mapped !== undefined) value.mapped = call.value(o.o.mapped);
          if (value.mapped !== undefined) boolean(call, value.mapped);
        } else if (value !== undefined) call.allow('type');
        // A range pinned already, or sharing a page with one: the driver's CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED.
        call.allow('cuda', 'oom');
        const result = call.run(() => manager.mempin(owner, pointer, nbytes, value));
        if (!result.ok) return;
        const memory = result.value;
        handOut(world, manager, memory, 'pin', { size: region });
        if (memory.hostOwner !== owner || memory.bytes.length !== region)
          throw new FuzzFailure(`mempin: hostOwner or ${memory.bytes.length} bytes, not ${region}`);
      },
    },
    {
      // The hostile end of a pin: its owner's buffer transferred away (as postMessage(owner, [owner])
      // to a worker would, whose end then frees it). Only a SharedArrayBuffer is pinned: it cannot be
      // transferred, only shared, and what the other side writes is in the pinned memory.
      name: 'transfer the owner of a pin away',
      covers: [],
      args: fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })),
      run(world, [i, seed]) {
        const record = pickMemory(world, i, (r) => r.kind === 'pin' && !r.view && !r.freed && r.size > 0);
        if (record === undefined) return;
        const { memory } = record;
        const owner = memory.hostOwner;
        const buffer = ArrayBuffer.isView(owner) ? owner.buffer : owner;
        if (!types.isSharedArrayBuffer(buffer))
          throw new FuzzFailure(`mempin pinned a ${buffer.constructor.name}, whose memory can be transferred away`);
        let transferred = false;
        try {
          structuredClone(buffer, { transfer: [buffer] });
          transferred = true;
        } catch {
          // refused: a SharedArrayBuffer is never in a transfer list
        }
        if (transferred) throw new FuzzFailure('the buffer of a pinned owner was transferred');
        const elsewhere = new Uint8Array(structuredClone(buffer), memory.bytes.byteOffset, memory.bytes.length);
        elsewhere.fill(seed);
        if (!allBytesAre(memory.bytes, seed)) throw new FuzzFailure('a pinned owner does not share its memory');
      },
    },
    {
      // Page-locked memory whose ArrayBuffer JavaScript moved into another (transfer(): the same
      // memory), then freed: the moved one keeps the memory until it goes (free() used to free it
      // under it), and the memory object is unusable at once.
      name: 'move the bytes of page-locked memory away, then free it',
      covers: [],
      args: fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })),
      run(world, [i, seed]) {
        if (!('transfer' in ArrayBuffer.prototype)) return;
        const isHost = (r) => (r.kind === 'pinned' || r.kind === 'mapped') && !r.view && !r.freed && r.size > 0;
        const record = pickMemory(world, i, isHost);
        if (record === undefined) return;
        const { memory } = record;
        const moved = new Uint8Array(memory.bytes.buffer.transfer());
        if (moved.length !== record.size || memory.bytes.length !== 0)
          throw new FuzzFailure('transfer() of page-locked bytes: lengths');
        const call = new Call(world, `${memory.constructor.name}#free of moved bytes`);
        call.allow('cuda');
        const result = call.run(() => memory.free());
        if (result.ok || memory.freed) released(world, record);
        // Its first and last MiB (the memory may be a valid GiB).
        const ends = moved.length <= 2 << 20 ? [moved] : [moved.subarray(0, 1 << 20), moved.subarray(-(1 << 20))];
        for (const end of ends) {
          end.fill(seed);
          if (!allBytesAre(end, seed)) throw new FuzzFailure('moved page-locked bytes do not keep what was written');
        }
        const after = new Call(world, 'bytes after free');
        after.invalid('disposed');
        after.run(() => memory.bytes);
      },
    },
    {
      name: 'memory getters',
      covers: [
        ...['ptr', 'size', 'device', 'owner', 'offset', 'buffer', 'freed', 'cudaArrayInterface'].map(
          (m) => `${pkg}:MemoryPointer#${m}`,
        ),
        ...['hostPtr', 'bytes', 'hostOwner'].map((m) => `${pkg}:MappedMemory#${m}`),
        ...['hostPtr', 'size', 'device', 'bytes', 'hostOwner'].map((m) => `${pkg}:PinnedMemory#${m}`),
      ],
      args: fc.nat(),
      run(world, i) {
        const record = pickMemory(world, i);
        if (record === undefined) return;
        const { memory } = record;
        const freed = record.view ? record.of.freed : record.freed;
        const call = new Call(world, `${memory.constructor.name} getters`);
        if (memory.freed !== freed) throw new FuzzFailure(`${memory.constructor.name}#freed is ${memory.freed}`);
        // Always readable: what it is a part of, and where.
        call.run(() => [memory.device, memory.hostOwner, memory.owner, memory.offset, memory.buffer]);
        if (freed) call.invalid('disposed');
        const result = call.run(() => {
          const out = { size: memory.size };
          if ('ptr' in memory) out.ptr = memory.ptr;
          if ('hostPtr' in memory) out.hostPtr = memory.hostPtr;
          if ('bytes' in memory) out.bytes = memory.bytes;
          if ('cudaArrayInterface' in memory) out.cai = memory.cudaArrayInterface;
          return out;
        });
        if (!result.ok) return;
        const { size: n, ptr, bytes, cai } = result.value;
        if (n !== record.size) throw new FuzzFailure(`${memory.constructor.name}#size is ${n}, not ${record.size}`);
        if (bytes !== undefined && bytes.length !== n) throw new FuzzFailure('bytes.length is not the size');
        if (cai !== undefined && (cai.data[0] !== ptr || cai.shape[0] !== n))
          throw new FuzzFailure('cudaArrayInterface');
      },
    },
    {
      name: 'MemoryPointer#view',
      covers: [`${pkg}:MemoryPointer#view`],
      args: fc.tuple(
        fc.nat(),
        V.sizeAmong(0, 1, 8, 100, 256),
        fc.oneof(fc.constant({ lit: undefined }), V.sizeAmong(0, 8, 64, 200)),
      ),
      run(world, [i, s, e]) {
        const record = pickMemory(world, i, (r) => r.memory instanceof world.P.emmPlugin.MemoryPointer);
        if (record === undefined) return;
        const call = new Call(world, 'MemoryPointer#view');
        const start = call.value(s);
        const stop = call.value(e);
        const base = record.view ? record.of : record;
        if (base.freed) call.invalid('disposed');
        size(call, start);
        if (stop !== undefined) size(call, stop);
        const end = stop ?? record.size;
        if (typeof end === 'number' && end > record.size) call.invalid('range');
        if (typeof start === 'number' && typeof end === 'number' && start > end) call.invalid('range');
        const result = call.run(() => record.memory.view(start, stop));
        if (!result.ok) return;
        const view = result.value;
        const ptr = record.memory.ptr;
        if (
          view.size !== end - start ||
          view.owner !== base.memory ||
          view.ptr !== (ptr === 0n ? 0n : ptr + BigInt(start))
        )
          throw new FuzzFailure('MemoryPointer#view: size, owner or ptr');
        if (view.offset !== record.memory.offset + start && ptr !== 0n)
          throw new FuzzFailure('MemoryPointer#view: offset');
        emm(world).memory.push({
          memory: view,
          manager: record.manager,
          kind: record.kind,
          size: end - start,
          view: true,
          of: base,
        });
      },
    },
    {
      name: 'free the memory of a manager',
      covers: [],
      args: fc.tuple(fc.nat(), fc.boolean()),
      run(world, [i, viaDispose]) {
        const record = pickMemory(world, i);
        if (record === undefined) return;
        const call = new Call(world, `${record.memory.constructor.name}#${viaDispose ? '[Symbol.dispose]' : 'free'}`);
        if (record.view) {
          if (!viaDispose) call.invalid(record.of.freed ? 'disposed' : 'logic'); // a view owns no memory
        } else if (record.freed && !viaDispose) call.invalid('disposed');
        if (record.kind === 'device' && !record.view && !record.freed) {
          const entry = world.resourceEntry(record.memory.buffer.mr);
          if (entry?.address !== undefined && world.counting.reachesJs(entry.address))
            call.allow('hostile', 'type', 'range', 'logic', 'disposed', 'value', 'wrongThread', 'cuda');
        }
        if (hostKinds.includes(record.kind) || record.kind === 'managed') call.allow('cuda');
        const result = call.run(() => (viaDispose ? record.memory[Symbol.dispose]() : record.memory.free()));
        if (!record.view && (result.ok || record.memory.freed)) released(world, record);
        // JavaScript can never touch freed host memory: its bytes are detached (or, pinned, the owner's again).
        if (result.ok && !record.view && (record.kind === 'pinned' || record.kind === 'mapped')) {
          const length = new Call(world, 'bytes after free');
          length.invalid('disposed');
          length.run(() => record.memory.bytes);
        }
      },
    },
    {
      name: 'RMMExternalMemoryManager#getMemoryInfo',
      covers: [`${MM}#getMemoryInfo`],
      args: fc.nat(),
      run(world, i) {
        const manager = pickManager(world, i);
        if (manager === undefined) return;
        const call = new Call(world, 'RMMExternalMemoryManager#getMemoryInfo');
        const { core } = world.P;
        const mr = core.getPerDeviceResource(manager.device);
        world.adoptResource(mr);
        // Only a CudaMemoryResource can tell (host memory never): RMM's manager raises for the rest.
        if (!(mr instanceof core.CudaMemoryResource)) call.invalid('logic');
        call.allow('cuda');
        const result = call.run(() => manager.getMemoryInfo());
        if (result.ok && !(result.value.free <= result.value.total && result.value.total > 0))
          throw new FuzzFailure(`getMemoryInfo: ${JSON.stringify(result.value)}`);
      },
    },
    {
      name: 'RMMExternalMemoryManager#getIpcHandle',
      covers: [`${MM}#getIpcHandle`],
      args: fc.tuple(fc.nat(), fc.option(fc.nat(), { nil: undefined }), V.hostile),
      run(world, [m, r, bad]) {
        const manager = pickManager(world, m);
        if (manager === undefined) return;
        const record = r === undefined ? undefined : pickMemory(world, r);
        const call = new Call(world, 'RMMExternalMemoryManager#getIpcHandle');
        const argument = record === undefined ? call.value(bad) : record.memory;
        if (record === undefined) {
          call.invalid('type');
          call.allow('hostile');
        } else if (!('ptr' in record.memory)) {
          call.invalid('type'); // PinnedMemory is no MemoryPointer
        } else if (record.view ? record.of.freed : record.freed) {
          call.invalid('disposed');
        } else {
          // Managed, mapped, empty and host memory cannot be shared; host mode has no driver.
          call.allow('value', 'noDriver', 'cuda', 'logic');
        }
        const result = call.run(() => manager.getIpcHandle(argument));
        if (!result.ok) return;
        const handle = result.value;
        if (handle.version !== 1 || handle.size !== record.size || !/^[0-9a-f]{128}$/.test(handle.handle))
          throw new FuzzFailure(`getIpcHandle: ${JSON.stringify(handle)}`);
      },
    },
    {
      name: 'RMMExternalMemoryManager#reset',
      covers: [`${MM}#reset`],
      args: fc.nat(),
      run(world, i) {
        const manager = pickManager(world, i);
        if (manager === undefined) return;
        const call = new Call(world, 'RMMExternalMemoryManager#reset');
        call.allow('cuda');
        for (const record of emm(world).memory) {
          if (record.manager !== manager || record.view || record.freed || record.kind !== 'device') continue;
          const entry = world.resourceEntry(record.memory.buffer.mr);
          if (entry?.address !== undefined && world.counting.reachesJs(entry.address))
            call.allow('hostile', 'type', 'range', 'logic', 'disposed', 'value', 'wrongThread');
        }
        const result = runReleasing(call, () => manager.reset());
        resync(world, manager);
        if (!result.ok) return;
        const left = emm(world).memory.filter((r) => r.manager === manager && !r.view && !r.freed);
        if (left.length > 0) throw new FuzzFailure(`reset() left ${left.length} of its memory live`);
      },
    },
    {
      name: 'RMMExternalMemoryManager#deferCleanup',
      covers: [`${MM}#deferCleanup`],
      args: fc.tuple(
        fc.nat(),
        fc.oneof(
          { weight: 3, arbitrary: fc.constant({ scope: true }) },
          {
            weight: 3,
            arbitrary: fc.record({ fn: fc.constantFrom('value', 'freeHost', 'async', 'throws'), i: fc.nat() }),
          },
          { weight: 1, arbitrary: V.hostile },
        ),
      ),
      async run(world, [i, f]) {
        const manager = pickManager(world, i);
        if (manager === undefined) return;
        const call = new Call(world, 'RMMExternalMemoryManager#deferCleanup');
        if ('scope' in f) {
          const result = call.run(() => manager.deferCleanup());
          if (!result.ok) return;
          const scope = result.value;
          if (typeof scope[Symbol.dispose] !== 'function') throw new FuzzFailure('deferCleanup() is not a Disposable');
          emm(world).scopes.push({ scope, manager });
          world.addCleanup('a deferCleanup scope', () => {
            scope[Symbol.dispose]();
            resync(world, manager);
          });
          return;
        }
        let fn;
        if ('fn' in f) {
          const record = pickMemory(
            world,
            f.i,
            (r) => r.manager === manager && !r.view && !r.freed && r.kind !== 'device',
          );
          fn = {
            value: () => 42,
            freeHost: () => {
              // Held until the scope closes: unusable at once all the same.
              if (record === undefined) return 42;
              record.memory.free();
              released(world, record);
              if (!record.memory.freed) throw new FuzzFailure('a release held by deferCleanup left the memory usable');
              return 42;
            },
            async: async () => 42,
            throws: () => {
              throw new RangeError('from the callback');
            },
          }[f.fn];
        } else {
          fn = call.value(f);
          if (fn === undefined) return; // that is deferCleanup() itself
          if (typeof fn !== 'function') call.invalid('type');
        }
        call.allow('cuda'); // a held release that failed, when the scope closes
        const result = await call.runAsync(() => {
          try {
            return manager.deferCleanup(fn);
          } catch (error) {
            // The callback's own error comes back as it is.
            if (error instanceof RangeError && error.message === 'from the callback') return 42;
            throw error;
          }
        });
        resync(world, manager);
        if (result.ok && 'fn' in f && result.value !== 42)
          throw new FuzzFailure(`deferCleanup(fn) gave ${result.value}`);
      },
    },
    {
      name: 'close a deferCleanup scope',
      covers: [],
      args: fc.nat(),
      run(world, i) {
        const entry = pick(emm(world).scopes, i);
        if (entry === undefined) return;
        const call = new Call(world, 'deferCleanup scope [Symbol.dispose]');
        call.allow('cuda');
        runReleasing(call, () => entry.scope[Symbol.dispose]()); // twice is nothing
        resync(world, entry.manager);
      },
    },
    {
      name: 'construct a memory class directly',
      covers: ['MemoryPointer', 'ManagedMemory', 'MappedMemory', 'PinnedMemory'].map((c) => `${pkg}:${c}.new`),
      args: fc.tuple(fc.constantFrom('MemoryPointer', 'ManagedMemory', 'MappedMemory', 'PinnedMemory'), V.hostile),
      run(world, [name, h]) {
        // The manager makes them; anything else is refused as core's abstract classes refuse it.
        const call = new Call(world, `new ${name}`);
        const value = call.value(h);
        call.invalid('type');
        call.run(() => new world.P.emmPlugin[name](value, { ptr: 0n, size: 0, device: 0, buffer: null }, null));
      },
    },
  ];
}
