// DeviceBuffer: construction, every method and getter, the async copies, with a model of the
// bytes each buffer holds.
import { types } from 'node:util';
import fc from 'fast-check';
import { HostileError, bytesOf } from '../hostile.js';
import {
  Call,
  FuzzFailure,
  buffer,
  hostBytes,
  hostLength,
  integer,
  options,
  resource,
  size,
  stream,
} from '../params.js';
import * as V from '../values.js';
import { knownBytes, unknownBytes } from '../world.js';
import { isToken, token as tokenDescriptor, tokenArg } from '../tokens.js';

const core = '@rmmjs/core';
const DB = `${core}:DeviceBuffer`;

/** Kinds an operation that allocates or frees through the buffer's resource may fail with. */
function allocating(call, address) {
  call.allow('oom');
  // With CUDA, a stream of another device than the buffer's (after cuda.setDevice) fails in the
  // driver, or a stream-ordered resource refuses it first (ERR_INVALID_ARG_VALUE).
  if (call.world.backend !== 'host') call.allow('cuda', ...(call.world.devices > 1 ? ['value'] : []));
  if (call.world.counting.reachesJs(address))
    call.allow('hostile', 'type', 'range', 'logic', 'disposed', 'value', 'wrongThread', 'cuda');
}

/** The resource `options.mr` stands for (the current device resource when omitted). */
function targetResource(world, mr) {
  return mr !== undefined ? world.resourceEntry(mr) : world.resourceEntry(world.P.core.getCurrentDeviceResource());
}

// A receiver: one of the world's buffers (freed ones included: they must say ERR_RMM_DISPOSED).
function receiver(world, descriptor) {
  const call = new Call(world, '');
  const { value, entry } = buffer(call, descriptor);
  return entry === undefined ? undefined : { buf: value, entry };
}

function method(name, args, run, covers = [`${DB}#${name}`]) {
  return {
    name: `DeviceBuffer#${name}`,
    covers,
    args: fc.tuple(V.buffer, ...args),
    run(world, [self, ...rest]) {
      const target = receiver(world, self);
      if (target === undefined) return undefined;
      const call = new Call(world, `DeviceBuffer#${name}`);
      if (target.entry.freed) call.invalid('disposed');
      return run(world, call, target, ...rest);
    },
  };
}

// A foreign CUDA array: a buffer's own interface (valid), a view of part of it, or malformed.
const caiVariants = [
  'own',
  'dunder',
  'typedF4',
  'zeroShape',
  'scalar',
  'badData',
  'nullPointer',
  'negativePointer',
  'fractionalPointer',
  'negativeShape',
  'twoDimensional',
  'strided',
  'badTypestr',
  'hugeShape',
  'caiThrows',
  'caiNull',
];
const caiArbitrary = fc.record({ cai: fc.constantFrom(...caiVariants), i: fc.nat() });

function makeCai(world, call, { cai, i }) {
  const source = world.buffers.filter((e) => !e.freed)[i % Math.max(1, world.buffers.filter((e) => !e.freed).length)];
  const ptr = source?.buf.ptr ?? 0n;
  const n = source?.expected.length ?? 0;
  const plain = (shape, typestr = '|u1', extra = {}) => ({
    cudaArrayInterface: { data: [ptr, false], shape, strides: null, typestr, version: 3, ...extra },
  });
  const valid = (value, bytes) => ({ value, source, bytes });
  switch (cai) {
    case 'own':
      if (source === undefined) {
        call.invalid('type');
        return { value: {} };
      }
      return valid({ cudaArrayInterface: source.buf.cudaArrayInterface }, n);
    case 'dunder':
      return valid({ __cuda_array_interface__: plain([n]).cudaArrayInterface }, n);
    case 'typedF4':
      return valid(plain([Math.floor(n / 4)], '<f4'), Math.floor(n / 4) * 4);
    case 'zeroShape':
      return valid(plain([0]), 0);
    case 'scalar':
      return n >= 1 ? valid(plain([]), 1) : valid(plain([0]), 0);
    case 'badData':
      call.invalid('value');
      return { value: { cudaArrayInterface: { data: 'x', shape: [n], typestr: '|u1', version: 3 } } };
    case 'nullPointer':
      call.invalid('value');
      return { value: { cudaArrayInterface: { data: [0n, false], shape: [16], typestr: '|u1', version: 3 } } };
    case 'negativePointer':
      call.invalid('value');
      return { value: { cudaArrayInterface: { data: [-256, false], shape: [1], typestr: '|u1', version: 3 } } };
    case 'fractionalPointer':
      call.invalid('value');
      return { value: { cudaArrayInterface: { data: [256.5, false], shape: [1], typestr: '|u1', version: 3 } } };
    case 'negativeShape':
      call.invalid('value');
      return { value: plain([-1]) };
    case 'twoDimensional':
      call.invalid('value');
      return { value: plain([1, 1]) };
    case 'strided':
      call.invalid('value');
      return { value: plain([1], '|u1', { strides: [2] }) };
    case 'badTypestr':
      call.invalid('value');
      return { value: plain([1], 'u1') };
    case 'hugeShape':
      // Either not a size, or too large for any buffer here: never copied.
      call.invalid('value');
      return { value: plain([2 ** 52], '<f8') };
    case 'caiThrows':
      call.flags.throws = true;
      call.invalid('type');
      return {
        value: {
          get cudaArrayInterface() {
            throw new HostileError('cudaArrayInterface getter');
          },
        },
      };
    case 'caiNull':
      call.invalid('type');
      return { value: { cudaArrayInterface: null } };
  }
  throw new Error(cai);
}

function checkCopyToHost(world, entry, out, version, what) {
  if (entry.version !== version || entry.freed) return;
  const bytes = bytesOf(out);
  world.checkBytes(entry, bytes.subarray(0, entry.expected.length), what);
}

// The asynchronous copies in flight, in the order they were issued, as core orders them on their
// streams (packages/core/src/stream-order.ts): a synchronous operation on a stream first finishes,
// in that order, every copy up to the last one it comes after. That is when the model learns what
// those copies did: a later read on the stream must see it.
const inFlight = (world) => (world.asyncCopies ??= []);

/** The key core orders a stream argument by (undefined: the default stream): its handle, CU_STREAM_LEGACY as 0. */
export function streamKey(streamValue) {
  if (streamValue === undefined) return 0n;
  try {
    const handle = streamValue.handle;
    return handle === 1n ? 0n : handle;
  } catch {
    return undefined; // disposed, or no Stream: the call fails before it orders anything
  }
}

// The legacy default stream is ordered with every stream.
const orderedKeys = (a, b) => a === b || a === 0n || b === 0n;

/**
 * Before a synchronous operation on the stream of `key` (null: every stream, a device's
 * synchronisation): what finishing the copies it comes after will teach the model, taken now
 * (those copies read their host memory now). Apply it once the operation succeeded: one refused
 * before it orders anything finishes no copy.
 */
export function finishingCopies(world, key) {
  if (key === undefined) return () => {};
  const copies = inFlight(world);
  let last = copies.length - 1;
  while (last >= 0 && key !== null && !orderedKeys(copies[last].key, key)) last--;
  const outcomes = copies.slice(0, last + 1).map((copy) => copy.outcome());
  return () => {
    for (const apply of outcomes) apply();
  };
}

/** Queues an async copy in the model; `outcome()` tells what finishing it now does. Returns its record. */
function queueCopy(world, key, outcome) {
  const copy = { key, finished: false, outcome: () => () => {} };
  copy.outcome = () => {
    const apply = outcome();
    return () => {
      if (copy.finished) return;
      copy.finished = true;
      inFlight(world).splice(inFlight(world).indexOf(copy), 1);
      apply();
    };
  };
  inFlight(world).push(copy);
  return copy;
}

// The copy ended by itself (its promise settled): out of the queue, unless an operation finished it.
function settled(world, copy) {
  const at = inFlight(world).indexOf(copy);
  if (at >= 0) inFlight(world).splice(at, 1);
}

export default function deviceBufferModels() {
  return [
    {
      name: 'new DeviceBuffer',
      covers: [`${DB}.new`],
      args: fc.tuple(
        V.options({ size: V.size, data: V.host, stream: V.stream, mr: V.resource }),
        fc.constantFrom(0, 1),
      ),
      run(world, [descriptor]) {
        const call = new Call(world, 'new DeviceBuffer');
        let value = call.value(descriptor);
        let nbytes = 0;
        let data;
        let mrEntry;
        if (options(call, value) && 'o' in descriptor) {
          const o = descriptor.o;
          value = {};
          let length;
          if (o.data !== undefined) {
            value.data = call.value(o.data);
            if (value.data !== undefined) {
              length = hostBytes(call, value.data);
              data = bytesOf(value.data);
            }
          }
          if (o.size !== undefined) {
            value.size = call.value(o.size);
            if (value.size !== undefined) size(call, value.size);
          }
          nbytes = value.size ?? length ?? 0;
          if (length !== undefined && typeof nbytes === 'number' && nbytes > length) call.invalid('value');
          if (o.stream !== undefined) value.stream = stream(call, o.stream).value;
          if (o.mr !== undefined && !('lit' in o.mr && o.mr.lit === undefined)) {
            const mr = resource(call, o.mr);
            value.mr = mr.value;
            mrEntry = mr.entry;
          }
        }
        mrEntry ??= targetResource(world, 'o' in descriptor ? value.mr : undefined);
        allocating(call, mrEntry?.address);
        const result = call.run(() => new world.P.core.DeviceBuffer(value));
        if (result.ok) {
          const buf = result.value;
          const expected = data === undefined ? unknownBytes(buf.size) : knownBytes(data.subarray(0, buf.size));
          // (A hostile options object may have a size of its own: a Map's is its entry count.)
          if ('o' in descriptor && buf.size !== nbytes)
            throw new FuzzFailure(`new DeviceBuffer: size ${buf.size}, expected ${nbytes}`);
          world.addBuffer(buf, expected);
        }
      },
    },
    {
      name: 'DeviceBuffer.toDevice',
      covers: [`${DB}.toDevice`],
      args: fc.tuple(V.host, V.stream),
      run(world, [bytesDescriptor, streamDescriptor]) {
        const call = new Call(world, 'DeviceBuffer.toDevice');
        const bytes = call.value(bytesDescriptor);
        hostBytes(call, bytes);
        const s = stream(call, streamDescriptor).value;
        const data = bytesOf(bytes);
        allocating(call, targetResource(world)?.address);
        const result = call.run(() => world.P.core.DeviceBuffer.toDevice(bytes, s));
        if (result.ok) world.addBuffer(result.value, knownBytes(data));
      },
    },
    {
      name: 'DeviceBuffer.toDeviceAsync',
      covers: [`${DB}.toDeviceAsync`],
      args: fc.tuple(V.host, V.stream),
      run(world, [bytesDescriptor, streamDescriptor]) {
        const call = new Call(world, 'DeviceBuffer.toDeviceAsync');
        const bytes = call.value(bytesDescriptor);
        hostBytes(call, bytes);
        const s = stream(call, streamDescriptor).value;
        const data = bytesOf(bytes);
        const target = targetResource(world);
        allocating(call, target?.address);
        call.allow('value'); // the bytes detached or shrunk during the copy
        if (hostLength(bytes) !== undefined) world.inflightHosts.push(bytes);
        // It allocates before it returns (the copy comes later): counted now, in the order the
        // resources see it (a later allocation must not come first for the peaks).
        const countedNow = call.required.size === 0 && !call.flags.unstable && target?.address !== undefined;
        const promise = call.runAsync(() => world.P.core.DeviceBuffer.toDeviceAsync(bytes, s));
        if (countedNow) world.counting.allocated(target.address, data.length);
        world.track(
          promise.then((result) => {
            if (result.ok)
              world.addBuffer(result.value, knownBytes(data), { counted: !countedNow }).hostMayHaveChanged = bytes;
            // A copy that failed freed its buffer: allocated and freed, the peaks moved.
            else world.counting.inexact(target?.address);
          }),
        );
      },
    },
    method(
      'getters',
      [fc.constant(0)],
      (world, call, { buf, entry }) => {
        const result = call.run(() => [buf.size, buf.nbytes, buf.ptr, buf.capacity(), buf.device]);
        if (result.ok) {
          const [sizeValue, nbytes, ptr, capacity] = result.value;
          const n = entry.expected.length;
          if (sizeValue !== n || nbytes !== n)
            throw new FuzzFailure(`DeviceBuffer size ${sizeValue}/${nbytes}, the model has ${n}`);
          if (typeof ptr !== 'bigint' || capacity > 0 !== (ptr !== 0n)) {
            throw new FuzzFailure(`DeviceBuffer ptr ${ptr} with capacity ${capacity}`);
          }
          if (capacity !== entry.capacity) {
            throw new FuzzFailure(`DeviceBuffer capacity() is ${capacity}, the model has ${entry.capacity}`);
          }
        }
        const mr = call.run(() => buf.mr);
        if (mr.ok && world.resourceEntry(mr.value)?.address !== entry.address) {
          throw new FuzzFailure('DeviceBuffer.mr is not the resource the buffer was allocated from');
        }
        // The interface names the buffer's Stream: disposed by a command, it is ERR_RMM_DISPOSED.
        if (world.streamEntry(buf.stream)?.disposed) call.allow('disposed');
        const cai = call.run(() => buf.cudaArrayInterface);
        if (cai.ok && (cai.value.shape[0] !== entry.expected.length || cai.value.typestr !== '|u1')) {
          throw new FuzzFailure(
            `cudaArrayInterface ${JSON.stringify(cai.value.shape)} for ${entry.expected.length} bytes`,
          );
        }
        const always = new Call(world, 'DeviceBuffer freed/stream/toString');
        always.run(() => {
          if (buf.freed !== entry.freed) throw new FuzzFailure(`DeviceBuffer.freed is ${buf.freed}`);
          if (!(buf.stream instanceof world.P.core.Stream))
            throw new FuzzFailure('DeviceBuffer.stream is not a Stream');
          return String(buf);
        });
      },
      [
        `${DB}#size`,
        `${DB}#nbytes`,
        `${DB}#ptr`,
        `${DB}#capacity`,
        `${DB}#device`,
        `${DB}#mr`,
        `${DB}#cudaArrayInterface`,
        `${DB}#freed`,
        `${DB}#stream`,
        `${DB}#toString`,
      ],
    ),
    method('copy', [fc.constant(0)], (world, call, { buf, entry }) => {
      allocating(call, entry.address);
      // The bytes as the copy starts: JavaScript of the resource may change the buffer while the copy allocates.
      const version = entry.version;
      const finish = finishingCopies(world, entry.freed ? undefined : streamKey(buf.stream));
      const result = call.run(() => buf.copy());
      if (!result.ok) return;
      const copy = result.value;
      const unchanged = entry.version === version;
      finish();
      if (unchanged && copy.size !== entry.expected.length)
        throw new FuzzFailure(`DeviceBuffer#copy has ${copy.size} bytes, the buffer ${entry.expected.length}`);
      world.addBuffer(copy, unchanged ? Int16Array.from(entry.expected) : unknownBytes(copy.size));
    }),
    method(
      'copyFromDevice',
      [fc.oneof(V.buffer, caiArbitrary, caiArbitrary), V.stream],
      (world, call, { buf, entry }, src, s) => {
        let source;
        let value;
        let nbytes;
        if ('cai' in src) {
          const made = makeCai(world, call, src);
          value = made.value;
          source = made.source;
          nbytes = made.bytes;
        } else {
          const arg = buffer(call, src);
          value = arg.value;
          source = arg.entry;
          nbytes = source?.expected.length;
        }
        const streamValue = stream(call, s).value;
        if (nbytes !== undefined && nbytes > entry.expected.length) call.invalid('value');
        const finish = finishingCopies(world, streamKey(streamValue));
        const result = call.run(() => buf.copyFromDevice(value, streamValue));
        if (!result.ok) return;
        finish();
        const bytes = source?.expected.slice(0, nbytes ?? 0);
        if (bytes !== undefined) entry.set(bytes);
      },
    ),
    method('copyFromHost', [V.host, V.stream], (world, call, { buf, entry }, b, s) => {
      const bytes = call.value(b);
      const length = hostBytes(call, bytes);
      const streamValue = stream(call, s).value;
      if (length !== undefined && length > entry.expected.length) call.invalid('value');
      const data = bytesOf(bytes);
      const finish = finishingCopies(world, streamKey(streamValue));
      if (!call.run(() => buf.copyFromHost(bytes, streamValue)).ok) return;
      finish();
      entry.write(0, data);
    }),
    method(
      'copyToHost',
      [fc.oneof(fc.constant({ lit: undefined }), V.host), V.stream],
      (world, call, { buf, entry }, t, s) => {
        const target = call.value(t);
        // null is no target, as Python's None (a new Uint8Array)
        const length = target === undefined || target === null ? undefined : hostBytes(call, target);
        const streamValue = stream(call, s).value;
        if (length !== undefined && length < entry.expected.length) call.invalid('value');
        const finish = finishingCopies(world, streamKey(streamValue));
        const result = call.run(() => buf.copyToHost(target, streamValue));
        if (!result.ok) return;
        finish();
        if (target != null && result.value !== target) throw new FuzzFailure('copyToHost did not return its target');
        checkCopyToHost(world, entry, result.value, entry.version, 'copyToHost');
      },
    ),
    method('toBytes', [V.stream], (world, call, { buf, entry }, s) => {
      const streamValue = stream(call, s).value;
      const finish = finishingCopies(world, streamKey(streamValue));
      const result = call.run(() => buf.toBytes(streamValue));
      if (!result.ok) return;
      finish();
      world.checkBytes(entry, result.value, 'toBytes');
    }),
    method(
      'copyToHostAsync',
      [fc.oneof(fc.constant({ lit: undefined }), V.host), V.stream],
      (world, call, { buf, entry }, t, s) => {
        const target = call.value(t);
        // null is no target, as Python's None (a new Uint8Array)
        const length = target === undefined || target === null ? undefined : hostBytes(call, target);
        const streamValue = stream(call, s).value;
        if (length !== undefined && length < entry.expected.length) call.invalid('value');
        // A target detached or shrunk by a later command rejects with ERR_INVALID_ARG_VALUE.
        call.allow('value');
        if (hostLength(target) !== undefined) world.inflightHosts.push(target);
        const version = entry.version;
        entry.inflight++;
        // Finished by a later synchronous operation: it read what the buffer held then.
        let finishedWith;
        const key = call.required.size === 0 ? streamKey(streamValue) : undefined;
        const promise = call.runAsync(() => buf.copyToHostAsync(target, streamValue));
        const copy =
          key === undefined
            ? undefined
            : queueCopy(world, key, () => {
                const known = entry.version === version && !entry.freed;
                return () => {
                  if (known) finishedWith = Int16Array.from(entry.expected);
                };
              });
        world.track(
          promise.then((result) => {
            entry.inflight--;
            if (copy !== undefined) settled(world, copy);
            if (!result.ok) return;
            if (target != null && result.value !== target)
              throw new FuzzFailure('copyToHostAsync did not resolve to its target');
            if (finishedWith === undefined)
              return checkCopyToHost(world, entry, result.value, version, 'copyToHostAsync');
            // The copy was done when that operation returned: later commands may have detached or
            // shrunk the target since.
            const read = bytesOf(result.value);
            if (read.length < finishedWith.length) return;
            world.checkBytes(
              { expected: finishedWith },
              read.subarray(0, finishedWith.length),
              'copyToHostAsync finished by a later operation',
            );
          }),
        );
      },
    ),
    method('copyFromHostAsync', [V.host, V.stream], (world, call, { buf, entry }, b, s) => {
      const bytes = call.value(b);
      const length = hostBytes(call, bytes);
      const streamValue = stream(call, s).value;
      if (length !== undefined && length > entry.expected.length) call.invalid('value');
      call.allow('value'); // the source detached or shrunk meanwhile
      const data = bytesOf(bytes);
      if (hostLength(bytes) !== undefined) world.inflightHosts.push(bytes);
      const copying = length ?? 0;
      if (call.required.size === 0) entry.forget(0, Math.min(copying, entry.expected.length));
      entry.inflight++;
      const hostIntact = () => {
        const now = bytesOf(bytes);
        return now?.length === data.length && now.every((x, i) => x === data[i]);
      };
      const key = call.required.size === 0 ? streamKey(streamValue) : undefined;
      const promise = call.runAsync(() => buf.copyFromHostAsync(bytes, streamValue));
      // Finished by a later synchronous operation: the buffer holds the bytes (when nothing else
      // wrote it meanwhile and the host memory is still there; else they stay unknown).
      const version = entry.version;
      let finished = false;
      const copy =
        key === undefined
          ? undefined
          : queueCopy(world, key, () => {
              const wrote = hostIntact() && entry.version === version && !entry.freed;
              return () => {
                finished = true;
                if (wrote) entry.write(0, data);
              };
            });
      world.track(
        promise.then((result) => {
          entry.inflight--;
          if (copy !== undefined) settled(world, copy);
          // Unknown if the host bytes changed meanwhile, or if another copy raced with this one.
          if (result.ok && !finished && !entry.freed && hostIntact()) entry.write(0, data);
        }),
      );
    }),
    method(
      'prefetch',
      [fc.oneof(fc.constant({ lit: undefined }), V.device, fc.constant({ lit: -1 })), V.stream],
      (world, call, { buf, entry }, d, s) => {
        const device = call.value(d);
        if (device !== undefined) integer(call, device, -1, 2 ** 31 - 1);
        const streamValue = stream(call, s).value;
        if (typeof device === 'number' && device >= Math.max(1, world.devices)) call.allow('cuda', 'range', 'value');
        // Without a stream it prefetches on the buffer's own Stream: disposed, that is ERR_RMM_DISPOSED.
        if (streamValue === undefined && world.streamEntry(buf.stream)?.disposed) call.allow('disposed');
        const finish = finishingCopies(world, entry.freed ? undefined : streamKey(streamValue ?? buf.stream));
        if (call.run(() => buf.prefetch(device, streamValue)).ok) finish();
      },
    ),
    method('reserve', [V.size, V.stream], (world, call, { buf, entry }, n, s) => {
      if (entry.inflight > 0) call.allow('logic'); // moving a buffer with a copy in flight is refused
      const newCapacity = call.value(n);
      size(call, newCapacity);
      const streamValue = stream(call, s).value;
      allocating(call, entry.address);
      const before = entry.capacity;
      const finish = finishingCopies(world, streamKey(streamValue));
      const ok = call.run(() => buf.reserve(newCapacity, streamValue)).ok;
      if (ok) finish();
      if (ok && newCapacity > before) {
        world.counting.allocated(entry.address, newCapacity);
        world.counting.deallocated(entry.address, before);
        entry.capacity = newCapacity;
      }
    }),
    method('resize', [V.size, V.stream], (world, call, { buf, entry }, n, s) => {
      if (entry.inflight > 0) call.allow('logic'); // moving a buffer with a copy in flight is refused
      const newSize = call.value(n);
      size(call, newSize);
      const streamValue = stream(call, s).value;
      allocating(call, entry.address);
      const before = entry.capacity;
      const finish = finishingCopies(world, streamKey(streamValue));
      if (call.run(() => buf.resize(newSize, streamValue)).ok) {
        finish();
        if (newSize > before) {
          world.counting.allocated(entry.address, newSize);
          world.counting.deallocated(entry.address, before);
          entry.capacity = newSize;
        }
        entry.resize(newSize);
      }
    }),
    method(
      'free',
      [fc.boolean()],
      (world, call, { buf, entry }, viaDispose) => {
        if (viaDispose && entry.freed) call.required.delete('disposed'); // [Symbol.dispose]() after free() is a no-op
        if (entry.address !== undefined && world.counting.reachesJs(entry.address)) allocating(call, entry.address);
        const result = call.run(() => (viaDispose ? buf[Symbol.dispose]() : buf.free()));
        if (entry.freed) return;
        if (result.ok) {
          entry.freed = true;
          // With a copy in flight the memory goes back when the copy ends.
          if (entry.inflight > 0) world.counting.inexact(entry.address);
          else world.counting.deallocated(entry.address, entry.capacity);
        } else if (result.kind === 'logic') {
          entry.freed = true; // the resource said the memory is not its own: freed all the same
          world.counting.inexact(entry.address);
        } else if (buf.freed) {
          entry.freed = true;
          world.counting.inexact(entry.address);
        }
      },
      [`${DB}#free`, `${DB}#[Symbol.dispose]`],
    ),
    method('transfer', [fc.constant(0)], (world, call, { buf, entry }) => {
      // Refused while a copy runs, and for memory a resource frees through JavaScript.
      if (entry.inflight > 0) call.allow('logic');
      if (entry.address !== undefined && world.counting.reachesJs(entry.address)) call.allow('wrongThread');
      const size = entry.expected.length;
      const result = call.run(() => buf.transfer());
      if (!result.ok) return;
      if (!isToken(result.value, 'rmmjs:buffer') || result.value.size !== size)
        throw new FuzzFailure(`DeviceBuffer#transfer gave ${JSON.stringify(result.value)} for ${size} bytes`);
      if (!buf.freed) throw new FuzzFailure('DeviceBuffer#transfer left the buffer usable');
      // The object is gone; its memory waits for a claim (or the teardown's reclaim).
      entry.freed = true;
      world.transfers.push({
        token: result.value,
        entry,
        expected: Int16Array.from(entry.expected),
        shared: entry.shared,
        claimed: false,
      });
    }),
    {
      name: 'DeviceBuffer.fromTransferred',
      covers: [`${DB}.fromTransferred`, `${DB}.reclaim`],
      args: fc.tuple(tokenDescriptor, fc.boolean()),
      run(world, [t, reclaim]) {
        const { DeviceBuffer } = world.P.core;
        const call = new Call(world, reclaim ? 'DeviceBuffer.reclaim' : 'DeviceBuffer.fromTransferred');
        const arg = tokenArg(call, t, world.transfers, world.shareTokens);
        if (arg === undefined) return;
        const { value, record } = arg;
        const claimed = record?.claimed;
        if (claimed && !reclaim) call.invalid('alreadyClaimed');
        const result = call.run(() => (reclaim ? DeviceBuffer.reclaim(value) : DeviceBuffer.fromTransferred(value)));
        if (!result.ok || record === undefined) return;
        if (reclaim) {
          if (result.value !== !claimed)
            throw new FuzzFailure(`DeviceBuffer.reclaim is ${result.value} for a transfer claimed: ${claimed}`);
          if (!claimed) world.counting.deallocated(record.entry.address, record.entry.capacity);
          record.claimed = true;
          return;
        }
        record.claimed = true;
        const buf = result.value;
        const { capacity } = record.entry;
        const claimedEntry = world.addBuffer(buf, Int16Array.from(record.expected), { counted: false, capacity });
        if (record.shared) claimedEntry.share();
        if (buf.size !== record.expected.length || buf.capacity() !== capacity)
          throw new FuzzFailure(`a claimed buffer has ${buf.size} bytes (capacity ${buf.capacity()}), not ${capacity}`);
        if (claimedEntry.address !== record.entry.address)
          throw new FuzzFailure('a claimed buffer has another resource than the buffer transferred');
        // Its stream is a new Stream of this thread, to dispose as any other.
        const streamObject = buf.stream;
        if (world.streamEntry(streamObject) === undefined) world.addStream(streamObject, true);
      },
    },
    {
      name: 'detach or shrink the host memory of a copy in flight',
      covers: [],
      args: fc.tuple(fc.nat(), fc.boolean()),
      run(world, [i, detach]) {
        const host = world.inflightHosts[i % Math.max(1, world.inflightHosts.length)];
        if (host === undefined) return;
        const memory = types.isArrayBuffer(host) ? host : host.buffer;
        if (types.isArrayBuffer(memory) && memory.byteLength > 0) {
          if (detach) structuredClone(memory, { transfer: [memory] });
          else if (memory.resizable) memory.resize(0);
        }
      },
    },
    {
      name: 'turn the event loop',
      covers: [],
      args: fc.constant(0),
      async run() {
        await new Promise((resolve) => setImmediate(resolve));
      },
    },
    {
      name: 'settle every promise',
      covers: [],
      args: fc.constant(0),
      async run(world) {
        await Promise.allSettled([...world.pending]);
      },
    },
  ];
}
