// @rmmjs/interop: DLPack capsules (toDLPack, fromDLPack, DLPackCapsule and what it reads) and CUDA
// IPC within one process (exportIpcHandle, openIpcHandle of the world's own handles and of malformed
// ones, sendIpcPool and receiveIpcPool with short timeouts, IpcPool, openIpcMappings). Opening a
// handle in the process that exported it is the driver's CUDA_ERROR_INVALID_CONTEXT: memory of
// another process is out of the fuzzer's reach.
import { constants, openSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { Call, FuzzFailure, buffer, options, stream } from '../params.js';
import * as V from '../values.js';
import { pick, unknownBytes } from '../world.js';

const pkg = '@rmmjs/interop';
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

const dtypeNames = ['uint8', 'int8', 'bool', 'int16', 'float32', 'float64', 'bfloat16', 'complex64', 'complex128'];

const arrayOf = (item, maxLength = 3) => fc.array(item, { maxLength }).map((lit) => ({ lit }));
const shapeArbitrary = fc.oneof(
  { weight: 4, arbitrary: arrayOf(fc.integer({ min: 0, max: 64 })) },
  { weight: 1, arbitrary: arrayOf(fc.constantFrom(-1, 0.5, 2 ** 53, '4', null, 1n)) },
  { weight: 1, arbitrary: V.hostile },
);
const stridesArbitrary = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ lit: null }) },
  { weight: 4, arbitrary: arrayOf(fc.integer({ min: -8, max: 8 })) },
  { weight: 1, arbitrary: arrayOf(fc.constantFrom(0.5, 2 ** 53, '1', MAX_SAFE)) },
  { weight: 1, arbitrary: V.hostile },
);
const dtypeArbitrary = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...dtypeNames, 'float8', 'UINT8', 'constructor').map((lit) => ({ lit })) },
  {
    weight: 2,
    arbitrary: V.options({
      code: V.integerAmong(0, 1, 2, 5, 255, 256),
      bits: V.integerAmong(1, 4, 8, 16, 32, 0, 256),
      lanes: V.integerAmong(1, 2, 4, 0, 65536),
    }),
  },
  { weight: 1, arbitrary: V.hostile },
);

function integerIn(call, value, min, max) {
  if (typeof value !== 'number') call.invalid('type');
  else if (!Number.isInteger(value) || value < min || value > max) call.invalid('range');
  else return true;
  return false;
}

function sizeValue(call, value) {
  if (typeof value !== 'number') call.invalid('type');
  else if (!Number.isSafeInteger(value) || value < 0) call.invalid('range');
  else return true;
  return false;
}

/**
 * value[key], or `{ threw: true }` where reading it throws (a hostile object: the call fails with
 * that error, which the call's flags allow).
 */
function read(value, key) {
  try {
    return { value: value[key] };
  } catch {
    return { threw: true };
  }
}

// What reading toDLPack's options from `value` throws.
function readError(value) {
  try {
    for (const key of ['dtype', 'shape', 'strides', 'byteOffset']) void value[key];
  } catch (error) {
    return error;
  }
  return undefined;
}

function isArray(value) {
  try {
    return Array.isArray(value);
  } catch {
    return false; // a revoked Proxy: the call fails with V8's TypeError, which its flags allow
  }
}

/** The dtype option by the README's rules: `{ code, bits, lanes }`, or undefined when it is invalid. */
function dtypeRule(call, value) {
  if (value === undefined) return { code: 1, bits: 8, lanes: 1 };
  if (typeof value === 'string') {
    const { dtypes } = call.world.P.interop;
    if (Object.hasOwn(dtypes, value)) return dtypes[value];
    call.invalid('value');
    return undefined;
  }
  if (typeof value !== 'object' || value === null) {
    call.invalid('type');
    return undefined;
  }
  const [code, bits, lanes] = ['code', 'bits', 'lanes'].map((key) => read(value, key));
  if (code.threw || bits.threw || lanes.threw) return undefined;
  const ok = [
    integerIn(call, code.value, 0, 255),
    integerIn(call, bits.value, 1, 255),
    integerIn(call, lanes.value ?? 1, 1, 65535),
  ];
  if (ok.every(Boolean)) return { code: code.value, bits: bits.value, lanes: lanes.value ?? 1 };
  return undefined;
}

/**
 * toDLPack's options by the README's rules, for a buffer of `size` bytes: the tensor's layout, or
 * undefined when some option is invalid (the errors it requires are recorded on `call`).
 */
function layoutRule(call, size, { dtype, shape, strides, byteOffset = 0 }) {
  const type = dtypeRule(call, dtype);
  if (!sizeValue(call, byteOffset)) return undefined;
  if (size !== undefined && byteOffset > size) {
    call.invalid('range');
    return undefined;
  }
  if (type === undefined || size === undefined) return undefined;
  const elementBits = type.bits * type.lanes;
  let dims;
  if (shape === undefined) {
    if (elementBits % 8 !== 0 || (size - byteOffset) % (elementBits / 8) !== 0) {
      call.invalid('value');
      return undefined;
    }
    dims = [(size - byteOffset) / (elementBits / 8)];
  } else if (!isArray(shape)) {
    call.invalid('type');
    return undefined;
  } else {
    if (!shape.map((extent) => sizeValue(call, extent)).every(Boolean)) return undefined;
    dims = shape;
  }
  let steps = null;
  if (strides != null) {
    if (!isArray(strides)) {
      call.invalid('type');
      return undefined;
    }
    if (!strides.map((step) => integerIn(call, step, -MAX_SAFE, MAX_SAFE)).every(Boolean)) return undefined;
    if (strides.length !== dims.length) {
      call.invalid('value');
      return undefined;
    }
    steps = strides;
  }
  const span = spanOf(dims, steps, elementBits);
  if (span === 'subByteStrides') {
    call.invalid('value');
    return undefined;
  }
  const start = BigInt(byteOffset) + span.first;
  if (span.bytes > 0n && (start < 0n || start + span.bytes > BigInt(size))) {
    call.invalid('value');
    return undefined;
  }
  return { type, dims, steps, byteOffset, span };
}

/** The bytes a tensor spans: from `first` bytes (from its byte offset; negative strides go back), `bytes` long. */
function spanOf(dims, steps, elementBits) {
  if (dims.some((extent) => extent === 0)) return { first: 0n, bytes: 0n };
  const bits = BigInt(elementBits);
  if (steps === null) {
    const count = dims.reduce((product, extent) => product * BigInt(extent), 1n);
    return { first: 0n, bytes: (count * bits + 7n) / 8n };
  }
  if (elementBits % 8 !== 0) return 'subByteStrides';
  let low = 0n;
  let high = 0n;
  dims.forEach((extent, i) => {
    const reach = BigInt(extent - 1) * BigInt(steps[i]);
    if (reach < 0n) low += reach;
    else high += reach;
  });
  return { first: low * (bits / 8n), bytes: (high - low + 1n) * (bits / 8n) };
}

const sameJSON = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** Live capsules: each wrapper with the shared state of its tensor. */
function capsules(world) {
  world.capsules ??= [];
  return world.capsules;
}

function streamOption(call, descriptor) {
  let value = call.value(descriptor);
  if (options(call, value) && 'o' in descriptor) {
    value = {};
    if (descriptor.o.stream !== undefined) value.stream = stream(call, descriptor.o.stream).value;
  } else if (typeof value === 'object' && value !== null) call.allow('type', 'disposed');
  return value;
}

// A well-formed handle of memory no process shares (the driver refuses its bytes), and its fields broken one at a time.
const foreign = () => ({
  version: 1,
  kind: 'memory',
  handle: '00'.repeat(64),
  offset: 0,
  size: 256,
  deviceUuid: 'GPU-66616b65-6375-6461-0000-000000000000',
});
const brokenHandles = {
  version: [{ version: 2 }, 'value'],
  kind: [{ kind: 'file' }, 'value'],
  shortHandle: [{ handle: 'ab'.repeat(63) }, 'value'],
  notHex: [{ handle: 'zz'.repeat(64) }, 'value'],
  negativeOffset: [{ offset: -1 }, 'range'],
  stringSize: [{ size: '256' }, 'type'],
  noBytes: [{ size: 0 }, 'range'],
  badUuid: [{ deviceUuid: '0' }, 'value'],
  poolWithoutId: [{ kind: 'pool' }, 'value'],
  badProcess: [{ process: 5 }, 'value'],
  badLease: [{ lease: { path: 1 } }, 'value'],
  // A handle is a peer's data: a lease that names what could block open() (a FIFO without a writer)
  // or anything else than the exporter's lease file is refused at once, before any mapping.
  fifoLease: [{ lease: () => ({ path: resolve(FIFO), file: '1:1', slot: 0 }) }, 'value'],
  procFifoLease: [{ lease: () => ({ path: procPathOfFifo(), file: '1:1', slot: 0 }) }, 'value', 'native'],
  nulLease: [{ lease: { path: `/proc/${process.pid}/fd/0\0`, file: '1:1', slot: 0 } }, 'value'],
  badLeaseFile: [{ lease: { path: `/proc/${process.pid}/fd/0`, file: 'one', slot: 0 } }, 'value'],
};

// The FIFO the fuzz child made in its working directory (child.js), and /proc/<pid>/fd/<fd> of it
// held open for reading (without blocking) by this process: a FIFO with no writer.
const FIFO = 'pipe.fifo';
let fifoReader;
function procPathOfFifo() {
  fifoReader ??= openSync(FIFO, constants.O_RDONLY | constants.O_NONBLOCK);
  return `/proc/${process.pid}/fd/${fifoReader}`;
}

export default function interopModels() {
  return [
    {
      name: 'DLDeviceType and dtypes',
      covers: [`${pkg}:DLDeviceType`, `${pkg}:dtypes`],
      args: fc.constant(0),
      run(world) {
        world.calls++;
        const { DLDeviceType, dtypes } = world.P.interop;
        if (!sameJSON(DLDeviceType, { kDLCPU: 1, kDLCUDA: 2, kDLCUDAHost: 3, kDLCUDAManaged: 13 }))
          throw new FuzzFailure(`DLDeviceType is ${JSON.stringify(DLDeviceType)}`);
        if (
          !sameJSON(dtypes.float32, { code: 2, bits: 32, lanes: 1 }) ||
          !sameJSON(dtypes.bfloat16, { code: 4, bits: 16, lanes: 1 })
        )
          throw new FuzzFailure('dtypes changed');
      },
    },
    {
      name: 'toDLPack',
      covers: [`${pkg}:toDLPack`],
      args: fc.tuple(
        V.buffer,
        V.options({
          dtype: dtypeArbitrary,
          shape: shapeArbitrary,
          strides: stridesArbitrary,
          byteOffset: V.sizeAmong(0, 1, 2, 4, 8, 16, 256),
        }),
      ),
      run(world, [b, o]) {
        const call = new Call(world, 'toDLPack');
        const { value, entry } = buffer(call, b);
        call.flags.proxyOfLive = false; // a Proxy of a buffer is not one: ERR_INVALID_ARG_TYPE
        const size = entry === undefined || entry.freed ? undefined : entry.expected.length;
        let optionsValue = call.value(o);
        let layout;
        if (options(call, optionsValue) && 'o' in o) {
          optionsValue = {};
          for (const [key, descriptor] of Object.entries(o.o)) optionsValue[key] = call.value(descriptor);
          layout = layoutRule(call, size, optionsValue);
        } else if (typeof optionsValue === 'object' && optionsValue !== null) {
          call.allow('type', 'range', 'value'); // some other object: its properties are what it has
          // One whose own getter throws (a DataView's byteOffset, out of bounds) fails with that error.
          const thrown = ['dtype', 'shape', 'strides', 'byteOffset'].map((key) => read(optionsValue, key).threw);
          if (thrown.some(Boolean) && !call.flags.throws && !call.flags.revoked) {
            const expected = readError(optionsValue);
            world.calls++;
            try {
              world.P.interop.toDLPack(value, optionsValue);
            } catch (error) {
              if (error?.constructor === expected?.constructor && error?.message === expected?.message) return;
              call.checkError(error);
              return;
            }
            throw new FuzzFailure('toDLPack read options whose getter throws and did not fail');
          }
        } else if (optionsValue === undefined) layout = layoutRule(call, size, {});
        // Synchronising the buffer's stream: a driver's failure.
        if (world.backend !== 'host') call.allow('cuda');
        const result = call.run(() => world.P.interop.toDLPack(value, optionsValue));
        if (!result.ok) return;
        const capsule = result.value;
        if (!(capsule instanceof world.P.interop.DLPackCapsule)) throw new FuzzFailure('toDLPack: not a DLPackCapsule');
        // The capsule holds the buffer's memory until its deleter runs: the counters can't follow.
        world.counting.inexact(entry.address);
        const state = { consumed: false, source: entry };
        capsules(world).push({ capsule, state });
        world.addCleanup('a DLPack capsule', () => capsule[Symbol.dispose]());
        if (layout === undefined) return; // options read from another kind of object
        state.layout = layout;
        const { DLDeviceType } = world.P.interop;
        const device = capsule.device;
        const types = world.backend === 'host' ? [DLDeviceType.kDLCPU] : Object.values(DLDeviceType);
        if (!types.includes(device.type)) throw new FuzzFailure(`toDLPack: device ${JSON.stringify(device)}`);
        const dtype = capsule.dtype;
        if (dtype.code !== layout.type.code || dtype.bits !== layout.type.bits || dtype.lanes !== layout.type.lanes)
          throw new FuzzFailure(`toDLPack: dtype ${JSON.stringify(dtype)}, asked for ${JSON.stringify(layout.type)}`);
        // A 0-dimensional tensor's strides are empty: NULL says the same.
        const strides = layout.steps?.length === 0 && capsule.strides === null ? [] : capsule.strides;
        if (!sameJSON(capsule.shape, layout.dims) || !sameJSON(strides, layout.steps))
          throw new FuzzFailure(
            `toDLPack: shape ${capsule.shape} strides ${capsule.strides}, asked for ${layout.dims} ${layout.steps}`,
          );
        if (capsule.byteOffset !== layout.byteOffset || capsule.readOnly !== false || capsule.consumed !== false)
          throw new FuzzFailure('toDLPack: byteOffset, readOnly or consumed');
        if (!sameJSON(capsule.version, { major: 1, minor: 1 })) throw new FuzzFailure('toDLPack: not DLPack 1.1');
        state.data = capsule.data;
        if (typeof state.data !== 'bigint') throw new FuzzFailure('DLPackCapsule#data is not a bigint');
      },
    },
    {
      name: 'DLPackCapsule getters',
      covers: [
        'external',
        'consumed',
        'version',
        'device',
        'dtype',
        'shape',
        'strides',
        'byteOffset',
        'data',
        'readOnly',
        '[Symbol.dispose]',
      ].map((m) => `${pkg}:DLPackCapsule#${m}`),
      args: fc.tuple(
        fc.nat(),
        fc.constantFrom('version', 'device', 'dtype', 'shape', 'strides', 'byteOffset', 'data', 'readOnly', 'dispose'),
      ),
      run(world, [i, what]) {
        const record = pick(capsules(world), i);
        if (record === undefined) return;
        const { capsule, state } = record;
        const call = new Call(world, `DLPackCapsule#${what}`);
        // Always readable: the external and whether it was consumed.
        if (typeof capsule.external !== 'object' || capsule.consumed !== state.consumed)
          throw new FuzzFailure(`DLPackCapsule#consumed is ${capsule.consumed}, the model says ${state.consumed}`);
        if (state.consumed && what !== 'dispose') call.invalid('disposed');
        const result = call.run(() => (what === 'dispose' ? capsule[Symbol.dispose]() : capsule[what]));
        if (!result.ok) return;
        if (what === 'dispose') {
          state.consumed = true; // handed back to its producer: the memory is the buffer's alone again
          return;
        }
        if (state.layout === undefined) return;
        const expected = {
          shape: state.layout.dims,
          strides: state.layout.steps?.length === 0 ? null : state.layout.steps,
          byteOffset: state.layout.byteOffset,
          data: state.data,
          readOnly: false,
        };
        const actual = what === 'strides' && result.value?.length === 0 ? null : result.value;
        if (what in expected && actual !== expected[what] && !sameJSON(actual, expected[what]))
          throw new FuzzFailure(`DLPackCapsule#${what} is ${String(result.value)}, not ${String(expected[what])}`);
      },
    },
    {
      name: 'new DLPackCapsule',
      covers: [`${pkg}:DLPackCapsule.new`],
      args: fc.oneof(
        fc.nat().map((i) => ({ capsule: i })),
        V.hostile,
      ),
      run(world, d) {
        const call = new Call(world, 'new DLPackCapsule');
        let external;
        let record;
        if ('capsule' in d) {
          record = pick(capsules(world), d.capsule);
          if (record === undefined) return;
          external = record.capsule.external;
        } else {
          external = call.value(d);
          call.invalid('type');
        }
        call.flags.proxyOfLive = false;
        const result = call.run(() => new world.P.interop.DLPackCapsule(external));
        // Another wrapper of the same capsule: consumed together.
        if (result.ok) capsules(world).push({ capsule: result.value, state: record.state });
      },
    },
    {
      name: 'fromDLPack',
      covers: [`${pkg}:fromDLPack`],
      args: fc.tuple(
        fc.oneof(
          { weight: 6, arbitrary: fc.record({ capsule: fc.nat(), raw: fc.boolean() }) },
          { weight: 1, arbitrary: V.hostile },
        ),
        V.options({ stream: V.stream }),
      ),
      run(world, [d, o]) {
        const call = new Call(world, 'fromDLPack');
        let argument;
        let record;
        if ('capsule' in d) {
          record = pick(capsules(world), d.capsule);
          if (record === undefined) return;
          argument = d.raw ? record.capsule.external : record.capsule;
          if (record.state.consumed) call.invalid('value'); // consumed once
        } else {
          argument = call.value(d);
          call.invalid('type');
        }
        call.flags.proxyOfLive = false;
        const optionsValue = streamOption(call, o);
        call.allow('noDriver', 'cuda');
        const result = call.run(() => world.P.interop.fromDLPack(argument, optionsValue));
        if (record === undefined) return;
        const { state } = record;
        // Only an option refused before the capsule was read leaves it unconsumed (a Proxy of a live
        // object as the options throws V8's TypeError when its stream getter runs: privateMember).
        const beforeRead = ['type', 'disposed', 'hostile', 'revoked', 'privateMember'];
        if (result.ok || !beforeRead.includes(result.kind)) state.consumed = true;
        if (!result.ok) return;
        const view = result.value;
        const entry = world.addBuffer(view, unknownBytes(view.size), { counted: false });
        // The view is the buffer's memory: its bytes are both's, its free() calls the deleter.
        entry.share();
        state.source.share();
        world.counting.inexact(entry.address);
        if (state.layout === undefined) return;
        const { span, byteOffset } = state.layout;
        if (BigInt(view.size) !== span.bytes)
          throw new FuzzFailure(`fromDLPack: a view of ${view.size} bytes, the tensor spans ${span.bytes}`);
        if (span.bytes > 0n && view.ptr !== state.data + BigInt(byteOffset) + span.first)
          throw new FuzzFailure('fromDLPack: the view is not where the tensor is');
      },
    },
    {
      name: 'exportIpcHandle',
      covers: [`${pkg}:exportIpcHandle`],
      args: V.buffer,
      run(world, b) {
        const call = new Call(world, 'exportIpcHandle');
        const { value } = buffer(call, b);
        call.flags.proxyOfLive = false;
        if (world.backend === 'host') call.invalid('noDriver');
        // Memory CUDA IPC cannot share (host, managed, an empty buffer, a pool without IPC), or the driver's refusal.
        else call.allow('value', 'cuda');
        const result = call.run(() => world.P.interop.exportIpcHandle(value));
        if (!result.ok) return;
        const handle = result.value;
        const ok =
          handle.version === 1 &&
          ['memory', 'pool'].includes(handle.kind) &&
          /^[0-9a-f]{128}$/.test(handle.handle) &&
          Number.isSafeInteger(handle.offset) &&
          handle.size === value.size &&
          /^GPU-[0-9a-f-]{36}$/.test(handle.deviceUuid) &&
          sameJSON(JSON.parse(JSON.stringify(handle)), handle);
        if (!ok) throw new FuzzFailure(`exportIpcHandle gave ${JSON.stringify(handle)}`);
        world.ipcHandles ??= [];
        world.ipcHandles.push(handle);
      },
    },
    {
      name: 'openIpcHandle',
      covers: [`${pkg}:openIpcHandle`, `${pkg}:openIpcMappings`],
      args: fc.tuple(
        fc.oneof(
          { weight: 3, arbitrary: fc.record({ own: fc.nat(), anonymous: fc.boolean() }) },
          {
            weight: 2,
            arbitrary: fc.constantFrom('foreign', ...Object.keys(brokenHandles)).map((h) => ({ handle: h })),
          },
          { weight: 1, arbitrary: V.hostile },
        ),
        V.options({ stream: V.stream }),
      ),
      run(world, [d, o]) {
        const call = new Call(world, 'openIpcHandle');
        let handle;
        if ('own' in d) {
          handle = pick(world.ipcHandles ?? [], d.own);
          if (handle === undefined) return;
          if (d.anonymous) {
            handle = { ...handle };
            delete handle.process; // the driver refuses it all the same
          }
          call.invalid('cuda'); // CUDA opens a handle only in another process
        } else if ('handle' in d) {
          const [change, kind, where] = brokenHandles[d.handle] ?? [{}, 'cuda'];
          handle = { ...foreign(), ...change };
          if (typeof change.lease === 'function') handle.lease = change.lease();
          call.invalid(kind); // the driver refuses the bytes of a foreign one
          if (where === 'native' && world.backend === 'host') call.invalid('noDriver'); // checked after requireCuda
        } else {
          handle = call.value(d);
          call.allow('type', 'value', 'range'); // an object's fields are whatever it has
          if (typeof handle !== 'object' || handle === null) call.invalid('type');
        }
        const optionsValue = streamOption(call, o);
        if (world.backend === 'host') call.allow('noDriver');
        else call.allow('value', 'range', 'logic'); // a device this process lacks; past the allocation; a pool not received
        const result = call.run(() => world.P.interop.openIpcHandle(handle, optionsValue));
        if (result.ok) {
          const entry = world.addBuffer(result.value, unknownBytes(result.value.size), { counted: false });
          entry.share();
        }
        const mappings = new Call(world, 'openIpcMappings').run(() => world.P.interop.openIpcMappings());
        if (!mappings.ok || !Number.isSafeInteger(mappings.value) || mappings.value < 0)
          throw new FuzzFailure(`openIpcMappings() is ${mappings.value}`);
      },
    },
    {
      name: 'sendIpcPool and receiveIpcPool',
      covers: [`${pkg}:sendIpcPool`, `${pkg}:receiveIpcPool`],
      args: fc.tuple(
        fc.constantFrom('send', 'receive', 'both'),
        fc.oneof(
          { weight: 3, arbitrary: V.resource },
          { weight: 3, arbitrary: fc.nat().map((i) => ({ asyncPool: i })) }, // with IPC or without
          { weight: 1, arbitrary: fc.constant({ lookalike: true }) },
        ),
        fc.oneof({ weight: 4, arbitrary: fc.constant({ path: true }) }, { weight: 1, arbitrary: V.mixedString }),
        V.options({ timeout: V.integerAmong(0, 1, 20, 60, -1, 2 ** 31, 0.5) }),
      ),
      run(world, [what, r, p, o]) {
        const { interop } = world.P;
        const path = 'path' in p ? `fuzz-${world.calls}.sock` : undefined;
        const pathFor = (call) => {
          if (path !== undefined) return path;
          const value = call.value(p);
          if (typeof value !== 'string') call.invalid('type');
          else if (value === '' || Buffer.byteLength(value) > 107 || value.includes('\0')) call.invalid('value');
          return value;
        };
        // Never the default (60 s) nor anything long: no process connects, or what connects is this one.
        const timeoutFor = (call) => {
          const value = call.value(o);
          if (!options(call, value)) return value; // refused at once
          if (!('o' in o) || o.o.timeout === undefined) return { timeout: 0 };
          const timeout = call.value(o.o.timeout);
          if (timeout === undefined) return { timeout: 0 };
          // A valid one past 100 ms waits 100 ms; an invalid one is refused at once.
          return { timeout: integerIn(call, timeout, 0, 2 ** 31 - 1) && timeout > 100 ? 100 : timeout };
        };
        const expected = (call) => {
          if (world.backend === 'host') call.allow('noDriver');
          // Nobody connected (ETIMEDOUT); this process's own pool comes back refused by the driver.
          else call.allow('errno', 'cuda', 'value', 'logic');
        };
        if (what !== 'receive') {
          const call = new Call(world, 'sendIpcPool');
          // Something that looks like a pool is not one: it never reaches the driver.
          const pools = world.resources.filter((e) => e.mr instanceof world.P.core.CudaAsyncMemoryResource);
          const pool =
            'lookalike' in r
              ? { poolHandle: () => 4096n, device: 0 }
              : 'asyncPool' in r
                ? pick(pools, r.asyncPool)?.mr
                : call.value(r);
          const entry = world.resourceEntry(pool);
          call.flags.proxyOfLive = false;
          if (entry === undefined || typeof pool.poolHandle !== 'function') call.invalid('type');
          else if (entry.disposed) call.invalid('disposed');
          const socketPath = pathFor(call);
          const timeout = timeoutFor(call);
          expected(call);
          world.track(call.runAsync(() => interop.sendIpcPool(pool, socketPath, timeout)));
        }
        if (what !== 'send') {
          const call = new Call(world, 'receiveIpcPool');
          const socketPath = pathFor(call);
          const timeout = timeoutFor(call);
          expected(call);
          world.track(
            call
              .runAsync(() => interop.receiveIpcPool(socketPath, timeout))
              .then((result) => {
                if (!result.ok) return;
                if (!(result.value instanceof interop.IpcPool)) throw new FuzzFailure('receiveIpcPool: not an IpcPool');
                (world.ipcPools ??= []).push(result.value);
                world.addCleanup('an IpcPool', () => result.value.close());
              }),
          );
        }
      },
    },
    {
      name: 'IpcPool',
      covers: [`${pkg}:IpcPool.new`, `${pkg}:IpcPool#close`, `${pkg}:IpcPool#[Symbol.dispose]`],
      args: fc.tuple(V.mixedString, V.device, V.mixedString, fc.boolean()),
      run(world, [i, d, u, dispose]) {
        // Made by receiveIpcPool only: direct construction is refused, whatever it is given.
        const call = new Call(world, 'IpcPool');
        const [id, device, uuid] = [call.value(i), call.value(d), call.value(u)];
        call.invalid('type');
        call.run(() => new world.P.interop.IpcPool(id, device, uuid));
        // close() and dispose of one receiveIpcPool made, here (the other model's run closes them at its end).
        const received = world.ipcPools?.at(-1);
        if (received === undefined) return;
        const closing = new Call(world, 'IpcPool#close');
        closing.run(() => (dispose ? received[Symbol.dispose]() : received.close()));
        closing.run(() => received.close()); // again: nothing
      },
    },
  ];
}
