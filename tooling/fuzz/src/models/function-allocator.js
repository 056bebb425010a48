// @rmmjs/function-allocator: rmmAllocator and RmmMemory (DeviceBuffers from the current device
// resource, which join the world's buffers: their bytes and counters are modelled as any other's),
// and the C hooks' table and counters (the hooks themselves are C functions: nothing calls them here).
import fc from 'fast-check';
import { Call, FuzzFailure, size, stream, streamOfDevice } from '../params.js';
import * as V from '../values.js';
import { pick, unknownBytes } from '../world.js';

const pkg = '@rmmjs/function-allocator';
const RM = `${pkg}:RmmMemory`;

/** What an allocation from the current device resource may fail with. */
function fromCurrent(world, call) {
  call.allow('oom');
  if (world.backend !== 'host') call.allow('cuda');
  const entry = world.resourceEntry(world.P.core.getCurrentDeviceResource());
  if (entry?.address !== undefined && world.counting.reachesJs(entry.address))
    call.allow('hostile', 'type', 'range', 'logic', 'disposed', 'value', 'wrongThread', 'cuda');
}

function memories(world) {
  return world.rmmMemory;
}

// A relative index, as ArrayBuffer.prototype.slice takes it.
function relative(value, length, absent) {
  if (value === undefined) return absent;
  const index = Number.isNaN(value) ? 0 : Math.trunc(value);
  return index < 0 ? Math.max(length + index, 0) : Math.min(index, length);
}

const index = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ lit: undefined }) },
  { weight: 6, arbitrary: fc.integer({ min: -300, max: 300 }).map((lit) => ({ lit })) },
  { weight: 1, arbitrary: fc.constantFrom(NaN, Infinity, -Infinity, 0.5, -0.5, 2 ** 60).map((lit) => ({ lit })) },
  { weight: 1, arbitrary: V.hostile },
);

export default function functionAllocatorModels() {
  return [
    {
      name: 'rmmAllocator, rmmMemoryAllocator, new RmmMemory',
      covers: [`${pkg}:rmmAllocator`, `${pkg}:rmmMemoryAllocator`, `${RM}.new`],
      args: fc.tuple(fc.constantFrom('rmmAllocator', 'rmmMemoryAllocator', 'new'), V.size, V.stream),
      run(world, [how, n, s]) {
        const { functionAllocator: fa } = world.P;
        const call = new Call(world, how === 'new' ? 'new RmmMemory' : how);
        const nbytes = call.value(n);
        size(call, nbytes);
        const streamArg = stream(call, s);
        const { value: streamValue } = streamArg;
        fromCurrent(world, call);
        streamOfDevice(call, streamArg, world.P.core.getCurrentDeviceResource().device);
        const result = call.run(() =>
          how === 'new' ? new fa.RmmMemory(nbytes, streamValue) : fa[how](nbytes, streamValue),
        );
        if (!result.ok) return;
        const isMemory = how !== 'rmmAllocator';
        const buf = isMemory ? result.value.buffer : result.value;
        if (!(buf instanceof world.P.core.DeviceBuffer) || buf.size !== nbytes)
          throw new FuzzFailure(`${how}: not a DeviceBuffer of ${nbytes} bytes`);
        if (isMemory && !(result.value instanceof fa.RmmMemory)) throw new FuzzFailure(`${how}: not an RmmMemory`);
        const entry = world.addBuffer(buf, unknownBytes(nbytes));
        if (isMemory) memories(world).push({ memory: result.value, entry });
      },
    },
    {
      name: 'RmmMemory getters',
      covers: ['ptr', 'byteLength', 'device', 'buffer', 'freed', '[Symbol.toStringTag]'].map((m) => `${RM}#${m}`),
      args: fc.nat(),
      run(world, i) {
        const record = pick(memories(world), i);
        if (record === undefined) return;
        const { memory, entry } = record;
        const call = new Call(world, 'RmmMemory getters');
        if (memory.buffer !== entry.buf || memory.freed !== entry.freed || String(memory) !== '[object RmmMemory]')
          throw new FuzzFailure('RmmMemory: buffer, freed or its tag');
        if (entry.freed) call.invalid('disposed');
        const result = call.run(() => [memory.ptr, memory.byteLength, memory.device]);
        if (!result.ok) return;
        const [ptr, byteLength] = result.value;
        if (typeof ptr !== 'number' || BigInt(ptr) !== entry.buf.ptr || byteLength !== entry.expected.length)
          throw new FuzzFailure(`RmmMemory: ptr ${ptr}, byteLength ${byteLength}`);
      },
    },
    {
      name: 'RmmMemory#slice',
      covers: [`${RM}#slice`],
      args: fc.tuple(fc.nat(), index, index),
      run(world, [i, s, e]) {
        const record = pick(memories(world), i);
        if (record === undefined) return;
        const { memory, entry } = record;
        const call = new Call(world, 'RmmMemory#slice');
        const start = call.value(s);
        const end = call.value(e);
        if (entry.freed) call.invalid('disposed');
        for (const value of [start, end]) if (value !== undefined && typeof value !== 'number') call.invalid('type');
        // The copy goes on the buffer's stream: a Stream object disposed meanwhile is ERR_RMM_DISPOSED.
        if (!entry.freed && world.streamEntry(entry.buf.stream)?.disposed) call.allow('disposed');
        if (entry.inflight > 0) call.allow('value'); // its bytes change while it copies
        fromCurrent(world, call);
        const result = call.run(() => memory.slice(start, end));
        if (!result.ok) return;
        const length = entry.expected.length;
        const from = relative(start, length, 0);
        const to = relative(end, length, length);
        const copy = result.value;
        if (!(copy instanceof world.P.functionAllocator.RmmMemory) || copy.byteLength !== Math.max(to - from, 0))
          throw new FuzzFailure(`RmmMemory#slice(${start}, ${end}) of ${length} bytes: ${copy.byteLength} bytes`);
        const bytes = to > from ? entry.expected.slice(from, to) : new Int16Array(0);
        memories(world).push({ memory: copy, entry: world.addBuffer(copy.buffer, bytes) });
      },
    },
    {
      name: 'RmmMemory#free',
      covers: [`${RM}#free`, `${RM}#[Symbol.dispose]`],
      args: fc.tuple(fc.nat(), fc.boolean()),
      run(world, [i, viaDispose]) {
        const record = pick(memories(world), i);
        if (record === undefined) return;
        const { memory, entry } = record;
        const call = new Call(world, viaDispose ? 'RmmMemory#[Symbol.dispose]' : 'RmmMemory#free');
        if (entry.freed && !viaDispose) call.invalid('disposed');
        if (entry.address !== undefined && world.counting.reachesJs(entry.address))
          call.allow('hostile', 'type', 'range', 'logic', 'disposed', 'value', 'wrongThread', 'cuda');
        const result = call.run(() => (viaDispose ? memory[Symbol.dispose]() : memory.free()));
        if (entry.freed) return;
        // As DeviceBuffer#free: given back, or refused as foreign memory (freed all the same).
        if (result.ok && entry.inflight === 0) world.counting.deallocated(entry.address, entry.capacity);
        else if (result.ok || result.kind === 'logic' || entry.buf.freed) world.counting.inexact(entry.address);
        if (result.ok || result.kind === 'logic' || entry.buf.freed) entry.freed = true;
      },
    },
    {
      name: 'allocatorHooks and allocatorHookStatistics',
      covers: [`${pkg}:allocatorHooks`, `${pkg}:allocatorHookStatistics`],
      args: fc.constant(0),
      run(world) {
        const { allocatorHooks: hooks, allocatorHookStatistics } = world.P.functionAllocator;
        const call = new Call(world, 'allocatorHookStatistics');
        const result = call.run(() => allocatorHookStatistics());
        if (!result.ok) return;
        const keys = ['liveAllocations', 'liveBytes', 'totalAllocations', 'failedAllocations', 'foreignFrees'];
        if (!keys.every((key) => Number.isSafeInteger(result.value[key]) && result.value[key] >= 0))
          throw new FuzzFailure(`allocatorHookStatistics() is ${JSON.stringify(result.value)}`);
        // Nothing here calls the C hooks: nothing of theirs is live.
        if (result.value.liveAllocations !== 0) throw new FuzzFailure('the C hooks hold allocations nobody made');
        const all = [hooks.cupy.malloc, hooks.cupy.free, hooks.torch.alloc, hooks.torch.free];
        all.push(hooks.onnxruntime.alloc, hooks.onnxruntime.free, hooks.onnxruntime.emptyCache);
        if (
          typeof hooks.library !== 'string' ||
          !hooks.library.endsWith('.so') ||
          !Object.isFrozen(hooks) ||
          !all.every((hook) => typeof hook.address === 'bigint' && hook.address > 0n && /^rmmjs_/.test(hook.symbol))
        )
          throw new FuzzFailure('allocatorHooks: a library, frozen, each hook a symbol and an address');
      },
    },
  ];
}
