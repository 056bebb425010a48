// The world of one fuzz run: every resource, buffer, stream and raw allocation the commands made
// (live, disposed or freed), the bytes each buffer should hold, and a model of the counters of
// every limiting, tracking and statistics adaptor. Teardown frees everything and checks that
// nothing was corrupted or lost.
import { setImmediate as turn } from 'node:timers/promises';
import { types } from 'node:util';
import { materialize } from './hostile.js';
import { Call, FuzzFailure, allKinds } from './oracle.js';
import { CountingModel } from './counting.js';

const MiB = 1 << 20;

/** A buffer's expected bytes: -1 where unknown (fresh memory, a copy in flight). */
class BufferEntry {
  constructor(buf, expected, address) {
    this.buf = buf;
    this.expected = expected;
    this.address = address; // of its resource
    this.capacity = expected.length;
    this.freed = false;
    this.version = 0;
    this.inflight = 0; // async copies running
    this.shared = false; // its memory is also another buffer's (holdMemory, DLPack): its bytes are unknown
  }
  write(offset, bytes) {
    this.version++;
    if (this.shared) return this.expected.fill(-1);
    for (let i = 0; i < bytes.length && offset + i < this.expected.length; i++) this.expected[offset + i] = bytes[i];
  }
  forget(from = 0, to = this.expected.length) {
    this.version++;
    this.expected.fill(-1, from, to);
  }
  /** The buffer's first bytes were copied from `bytes` (copyFromDevice). */
  set(bytes) {
    if (this.shared) this.forget();
    else this.write(0, bytes);
  }
  /** Its memory is another buffer's too: what either writes, the other sees. */
  share() {
    this.shared = true;
    this.forget();
  }
  resize(size) {
    this.version++;
    const next = new Int16Array(size).fill(-1);
    next.set(this.expected.subarray(0, Math.min(size, this.expected.length)));
    this.expected = next;
  }
}

export const unknownBytes = (size) => new Int16Array(size).fill(-1);
export const knownBytes = (bytes) => Int16Array.from(bytes);

export class World {
  constructor(P, { backend }) {
    this.P = P;
    this.backend = backend;
    this.calls = 0;
    this.resources = []; // { mr, address, disposed, private }
    this.buffers = [];
    this.rmmMemory = []; // { memory, entry }: function-allocator's RmmMemory objects and their buffers
    this.streams = []; // { stream, disposed, owned }
    this.streamPools = [];
    this.disposedPools = new Set();
    this.allocations = []; // { entry, ptr, nbytes, stream, freed }
    this.scopes = []; // open statistics/profile scopes
    this.hooks = []; // reinitialize hooks registered
    this.profilerRecords = [];
    this.pending = new Set();
    this.inflightHosts = []; // host memory handed to async copies
    this.madeJsResources = false; // a CallbackMemoryResource or failure callback was made
    this.counting = new CountingModel(this);
    this.keepers = new Map(); // address -> DeviceBuffer of 0 bytes that keeps the native resource alive
    this.shareTokens = []; // { token, entry }: DeviceMemoryResource#share() tokens and their resource
    this.transfers = []; // { token, entry, claimed }: DeviceBuffer#transfer() tokens and the buffer they moved
    this.memoryHandles = []; // { handle, taken }: holdMemory handles, each a share of a buffer's memory
    this.cleanups = []; // { name, run() }: what a package handed out outside the world's lists, given back at teardown
    this.depth = 0; // nesting of callbacks and getters that run side actions
    this.retries = 0; // failure callbacks' retries left in this command (see callbacks.js)
    this.tearingDown = false;
  }

  // ---- setup ----

  start() {
    const { core } = this.P;
    if (this.backend === 'fake') this.baselineStats = this.P.fakeCuda.stats();
    this.devices = Math.max(1, core.cuda.getDeviceCount());
    // The registry as the process had it before any run (a failed run must not change the next).
    this.originalCurrent = this.P.pristine.perDevice[this.P.pristine.device];
    this.profilerRecords.push({ records: this.P.statistics.defaultProfilerRecords, model: new Map(), unknown: true });
    this.originalLevels = [this.P.logging.getLoggingLevel(), this.P.logging.getFlushLevel()];
    // Everything the run allocates comes through a counter of the harness's own.
    this.root = new this.P.limiting.LimitingResourceAdaptor(this.originalCurrent, 512 * MiB);
    this.rootEntry = this.addResource(this.root, { private: true });
    core.setCurrentDeviceResource(this.root);
  }

  // ---- references ----

  /** The value of an argument descriptor (see values.js and hostile.js). */
  resolve(descriptor, flags = {}) {
    if (descriptor === undefined) return undefined;
    if ('o' in descriptor) {
      const object = {};
      for (const [key, value] of Object.entries(descriptor.o)) object[key] = this.resolve(value, flags);
      return object;
    }
    switch (descriptor.r) {
      case undefined:
        return materialize(descriptor, this, flags);
      case 'resource':
        return (
          pick(
            this.resources.filter((e) => !e.private),
            descriptor.i,
          )?.mr ?? this.root
        );
      case 'root':
        return this.root;
      case 'current':
        return this.adoptResource(this.P.core.getCurrentDeviceResource());
      case 'buffer':
        return pick(this.buffers, descriptor.i)?.buf;
      case 'stream':
        // A borrowed handle whose stream was destroyed is the caller's fault: never used.
        return pick(this.usableStreams(), descriptor.i)?.stream ?? this.P.core.DEFAULT_STREAM;
      case 'defaultStream':
        return [this.P.core.DEFAULT_STREAM, this.P.core.LEGACY_DEFAULT_STREAM, this.P.core.PER_THREAD_DEFAULT_STREAM][
          descriptor.which
        ];
    }
    throw new Error(`unknown reference ${JSON.stringify(descriptor)}`);
  }

  usableStreams() {
    return this.streams.filter((e) => e.owner === undefined || !e.owner.disposed);
  }

  /** What a Proxy of a live object may wrap. */
  liveObjects() {
    return [
      ...this.resources.filter((e) => !e.disposed).map((e) => e.mr),
      ...this.buffers.filter((e) => !e.freed).map((e) => e.buf),
      ...this.streams.filter((e) => !e.disposed).map((e) => e.stream),
    ];
  }

  // ---- registration ----

  addressOf(mr) {
    const { internal } = this.P;
    return internal.native.resourceAddress(internal.resourceHandle(mr, 'mr'));
  }

  resourceEntry(value) {
    if (typeof value !== 'object' || value === null || types.isProxy(value)) return undefined;
    if (!(value instanceof this.P.core.DeviceMemoryResource)) return undefined;
    return this.resources.find((e) => e.mr === value) ?? this.adoptResourceEntry(value);
  }

  addResource(mr, { private: isPrivate = false, upstream, kind } = {}) {
    const entry = { mr, address: this.addressOf(mr), disposed: false, private: isPrivate };
    this.resources.push(entry);
    this.counting.created(entry, mr, upstream, kind);
    return entry;
  }

  adoptResourceEntry(mr) {
    // A wrapper made by the packages (getCurrentDeviceResource, upstreamMr, binMrs, buffer.mr):
    // the same native resource as a known one, or one made inside a package.
    // The process's own resources (the registry's before any run) are never disposed by a run.
    const pristine = this.P.pristine.perDevice.includes(mr);
    const entry = { mr, address: undefined, disposed: false, private: pristine };
    try {
      entry.address = this.addressOf(mr);
    } catch {
      entry.disposed = true;
    }
    this.resources.push(entry);
    this.counting.adopted(entry, mr);
    return entry;
  }

  adoptResource(mr) {
    this.resourceEntry(mr);
    return mr;
  }

  bufferEntry(value) {
    if (typeof value !== 'object' || value === null || types.isProxy(value)) return undefined;
    return this.buffers.find((e) => e.buf === value);
  }

  /**
   * A new buffer; its allocation of `expected.length` bytes is counted, unless `counted` is false
   * (memory it did not allocate: a claimed transfer, lent memory).
   */
  addBuffer(buf, expected, { counted = true, capacity } = {}) {
    const mr = buf.mr;
    const address = this.resourceEntry(mr)?.address;
    const entry = new BufferEntry(buf, expected, address);
    if (capacity !== undefined) entry.capacity = capacity;
    this.buffers.push(entry);
    if (counted) this.counting.allocated(address, expected.length);
    return entry;
  }

  /** Something the teardown gives back before it checks (`run` may throw documented errors). */
  addCleanup(name, run) {
    this.cleanups.push({ name, run });
  }

  streamEntry(value) {
    if (typeof value !== 'object' || value === null || types.isProxy(value)) return undefined;
    const { core } = this.P;
    if ([core.DEFAULT_STREAM, core.LEGACY_DEFAULT_STREAM, core.PER_THREAD_DEFAULT_STREAM].includes(value)) {
      return { stream: value, disposed: false, owned: false };
    }
    return this.streams.find((e) => e.stream === value);
  }

  addStream(stream, owned) {
    const entry = { stream, disposed: false, owned };
    this.streams.push(entry);
    return entry;
  }

  /** Keeps the native resource of `entry` alive until teardown (for its raw allocations). */
  keep(entry) {
    if (this.keepers.has(entry.address)) return true;
    const live = this.resources.find((e) => e.address === entry.address && !e.disposed);
    if (live === undefined) return false; // disposed in the middle of the call that allocated
    this.keepers.set(entry.address, new this.P.core.DeviceBuffer({ size: 0, mr: live.mr }));
    return true;
  }

  /** A live wrapper of the native resource at `address` (kept alive by keep()). */
  liveWrapper(address) {
    const live = this.resources.find((e) => e.address === address && !e.disposed);
    if (live !== undefined) return live.mr;
    return this.adoptResource(this.keepers.get(address).mr);
  }

  /** An async call in flight; a check that fails when it settles fails the run (after the command running then). */
  track(promise) {
    const tracked = promise
      .catch((error) => {
        this.asyncFailure ??= error;
      })
      .finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
    return tracked;
  }

  throwAsyncFailure() {
    if (this.asyncFailure !== undefined) throw this.asyncFailure;
  }

  // ---- re-entrancy: what callbacks and getters do in the middle of a call ----

  sideAction(action) {
    if (this.tearingDown || this.depth > 1 || action.act === 'nothing') return;
    this.depth++;
    try {
      this.#sideAction(action);
    } catch (error) {
      // A failed check must not travel through the call that ran this callback as its error.
      if (!(error instanceof FuzzFailure)) throw error;
      this.asyncFailure ??= error;
    } finally {
      this.depth--;
    }
  }

  #sideAction({ act, i, size }) {
    const { core } = this.P;
    const call = new Call(this, `side action ${act}`);
    call.allow(...allKinds, 'hostile'); // in the middle of another call, anything documented
    switch (act) {
      case 'freeBuffer': {
        const entry = pick(this.buffers, i);
        if (entry === undefined) return;
        this.counting.unknownBuffer(entry.buf);
        const result = call.run(() => entry.buf.free());
        if (result.ok || result.kind === 'logic' || result.kind === 'disposed') entry.freed = true;
        return;
      }
      case 'disposeResource': {
        const entry = pick(
          this.resources.filter((e) => !e.private),
          i,
        );
        if (entry === undefined) return;
        if (call.run(() => entry.mr[Symbol.dispose]()).ok) entry.disposed = true;
        return;
      }
      case 'newBuffer': {
        const entry = pick(
          this.resources.filter((e) => !e.private),
          i,
        );
        if (entry === undefined) return;
        const result = call.run(() => new core.DeviceBuffer({ size, mr: entry.mr }));
        if (result.ok) this.addBuffer(result.value, unknownBytes(size));
        return;
      }
      case 'resizeBuffer': {
        const entry = pick(this.buffers, i);
        if (entry === undefined || entry.freed) return;
        // The buffer may be the one being copied or resized: its counters and bytes become unknown.
        this.counting.unknownBuffer(entry.buf);
        if (call.run(() => entry.buf.resize(size)).ok) {
          entry.resize(size);
          entry.capacity = Math.max(entry.capacity, size);
        }
        return;
      }
      case 'allocate': {
        const entry = pick(
          this.resources.filter((e) => !e.private && !e.disposed),
          i,
        );
        if (entry === undefined) return;
        const result = call.run(() => entry.mr.allocate(size));
        if (result.ok) this.rawAllocated(entry, result.value, size, undefined);
        return;
      }
      case 'setCurrent': {
        const entry = pick(
          this.resources.filter((e) => !e.disposed),
          i,
        );
        if (entry !== undefined) call.run(() => this.adoptResource(core.setCurrentDeviceResource(entry.mr)));
        return;
      }
      case 'copyBuffer': {
        const entry = pick(this.buffers, i);
        if (entry === undefined || entry.freed) return;
        this.counting.unknownBuffer(entry.buf);
        const result = call.run(() => entry.buf.copy());
        if (result.ok) this.addBuffer(result.value, Int16Array.from(entry.expected));
        return;
      }
    }
  }

  rawAllocated(entry, ptr, nbytes, stream, { viaCallback = false } = {}) {
    this.counting.allocated(entry.address, nbytes, entry.mr);
    // A resource whose last wrapper went while it allocated cannot be freed through any more: its
    // memory goes back when the native resource goes (or, for a callback's, through its inner).
    const freed = !this.keep(entry);
    if (freed) this.counting.inexact(entry.address);
    // What a callback took from its inner resource belongs to the callback's allocation: only the
    // callback (or the teardown, after it) frees it.
    this.allocations.push({ address: entry.address, ptr, nbytes, stream, freed, viaCallback });
  }

  /** A raw allocation was freed through `mr` (0n only counts as a free on a statistics adaptor itself, as in RMM). */
  rawDeallocated(allocation, mr) {
    if (allocation.ptr !== 0n) this.counting.deallocated(allocation.address, allocation.nbytes);
    else if (mr instanceof this.P.statistics.StatisticsResourceAdaptor) {
      this.counting.statisticsNullFree(allocation.address, allocation.nbytes);
    }
  }

  /** A callback's deallocate freed `ptr` through the resource at `address`. */
  rawFreed(address, ptr, nbytes) {
    const allocation = this.allocations.find((a) => a.address === address && a.ptr === ptr && !a.freed);
    if (allocation === undefined) return;
    allocation.freed = true;
    if (allocation.nbytes === nbytes) this.counting.deallocated(address, nbytes);
    else this.counting.inexact(address);
  }

  // ---- checks ----

  /** Compares a buffer's bytes with what the model wrote there. */
  checkBytes(entry, actual, what) {
    const { expected } = entry;
    if (actual.length !== expected.length) {
      throw new FuzzFailure(`${what}: ${actual.length} bytes read, the buffer holds ${expected.length}`);
    }
    for (let i = 0; i < expected.length; i++) {
      if (expected[i] !== -1 && expected[i] !== actual[i]) {
        throw new FuzzFailure(`${what}: byte ${i} is ${actual[i]}, the model wrote ${expected[i]} (corruption)`);
      }
    }
  }

  // ---- teardown ----

  /**
   * Checks the world and gives everything back: the bytes of every live buffer, the counters once
   * everything is freed, nothing left in the root resource or the fake driver. Whatever happens,
   * the process is left as the run found it (the next run starts clean).
   */
  async teardown() {
    await Promise.allSettled([...this.pending]);
    try {
      this.throwAsyncFailure();
      await this.#checkAndGiveBack();
    } finally {
      this.#restoreQuietly();
      this.root[Symbol.dispose]();
    }
  }

  async #checkAndGiveBack() {
    const { logging } = this.P;
    this.tearingDown = true;
    for (const scope of this.scopes.splice(0).reverse()) {
      try {
        scope[Symbol.dispose]();
      } catch (error) {
        const call = new Call(this, 'teardown: leaving a statistics or profile scope');
        call.allow('logic', 'range', 'disposed');
        call.checkError(error);
      }
    }
    logging.disableLogging();
    for (const { name, run } of this.cleanups.splice(0).reverse()) {
      try {
        run();
      } catch (error) {
        const call = new Call(this, `teardown: ${name}`);
        call.allow('logic', 'disposed');
        call.checkError(error);
      }
    }
    for (const transfer of this.transfers) {
      if (transfer.claimed) continue;
      // Nobody claimed it: reclaim frees its memory (and says it did).
      transfer.claimed = true;
      if (this.P.core.DeviceBuffer.reclaim(transfer.token) !== true)
        throw new FuzzFailure('teardown: DeviceBuffer.reclaim of an unclaimed transfer returned false');
      this.counting.deallocated(transfer.entry.address, transfer.entry.capacity);
    }
    for (const held of this.memoryHandles) {
      if (held.taken === true) continue;
      const maybe = held.taken === 'maybe';
      held.taken = true;
      try {
        this.P.addon.adoptMemory(held.handle).free(); // lets go of its share
      } catch (error) {
        if (!(maybe && error?.code === 'ERR_RMM_DISPOSED')) throw error;
      }
    }
    for (const entry of this.buffers) {
      if (entry.freed) continue;
      this.checkBytes(entry, entry.buf.toBytes(), 'teardown: a live buffer');
      if (this.#freeingThroughJs(entry.address, () => entry.buf.free()))
        this.counting.deallocated(entry.address, entry.capacity);
      else this.#letGo(entry);
      entry.freed = true;
    }
    // Last first: an allocation a callback made from its inner resource goes after the callback's own.
    for (const allocation of [...this.allocations].reverse()) {
      if (allocation.freed) continue;
      const mr = this.liveWrapper(allocation.address);
      const freed = this.#freeingThroughJs(allocation.address, () =>
        mr.deallocate(allocation.ptr, allocation.nbytes, this.#streamOf(allocation)),
      );
      allocation.freed = true;
      if (freed) this.rawDeallocated(allocation, mr);
    }
    this.counting.checkAll('teardown, everything freed');

    this.#restoreQuietly();
    await this.#settleCollector(() => this.rootBytes() === 0);
    const left = this.rootBytes();
    if (left !== 0 && !this.tainted) {
      throw new FuzzFailure(`teardown: ${left} bytes not given back to the root resource (a leak)`);
    }
    this.root[Symbol.dispose]();

    if (this.backend === 'fake') {
      const live = () => liveCounts(this.P.fakeCuda.stats());
      const before = liveCounts(this.baselineStats);
      // Not more than before the run (core may release memory it cached before, such as staging).
      await this.#settleCollector(() => noMore(live(), before));
      if (!noMore(live(), before)) {
        throw new FuzzFailure(
          `teardown: the fake driver still has ${JSON.stringify(live())} live, ${JSON.stringify(before)} before the run`,
        );
      }
    }
  }

  /**
   * Runs a free; true when it freed. Through a resource whose deallocate is JavaScript that throws
   * (a hostile function given as the callback), it cannot: what that JavaScript took from its inner
   * resource is freed through the inner one (the world keeps it as an allocation of its own), and the
   * error must be a documented one or the callback's own.
   */
  #freeingThroughJs(address, free) {
    try {
      free();
      return true;
    } catch (error) {
      if (address === undefined || !this.counting.reachesJs(address)) throw error;
      const call = new Call(this, 'teardown: a free through JavaScript');
      call.allow(...allKinds, 'hostile');
      call.checkError(error);
      this.counting.inexact(address);
      return false;
    }
  }

  /**
   * Forgets a buffer whose free threw: it still owns its memory as far as it knows (free() may be
   * tried again), and with it its stream and resource, until the collector finalizes it (where the
   * deallocation fails again and is logged). Held here, its stream would outlive the run's Streams
   * (the fake driver's check); the RmmMemory over it would hold it too.
   */
  #letGo(entry) {
    entry.buf = undefined;
    this.rmmMemory = this.rmmMemory.filter((record) => record.entry !== entry);
  }

  // The stream an allocation was made on, or the default stream once that Stream was disposed.
  #streamOf({ stream }) {
    const entry = this.streamEntry(stream);
    return entry !== undefined && entry.disposed ? undefined : stream;
  }

  rootBytes() {
    return this.root.getAllocatedBytes();
  }

  // Everything a run changed in the process, put back; each step on its own (after a failure,
  // some of them fail too).
  #restoreQuietly() {
    const { core, logging } = this.P;
    this.tearingDown = true;
    const quietly = (fn) => {
      try {
        fn();
      } catch {
        // best effort: the run has failed already, or what is left is checked next
      }
    };
    for (const scope of this.scopes.splice(0).reverse()) quietly(() => scope[Symbol.dispose]());
    for (const hook of this.hooks.splice(0)) quietly(() => core.unregisterReinitializeHook(hook));
    for (const { run } of this.cleanups.splice(0).reverse()) quietly(run);
    for (const transfer of this.transfers) {
      if (!transfer.claimed) quietly(() => core.DeviceBuffer.reclaim(transfer.token));
      transfer.claimed = true;
    }
    for (const held of this.memoryHandles) {
      if (held.taken !== true) quietly(() => this.P.addon.adoptMemory(held.handle).free());
      held.taken = true;
    }
    quietly(() => logging.disableLogging());
    quietly(() => logging.setLoggingLevel(this.originalLevels[0]));
    quietly(() => logging.setFlushLevel(this.originalLevels[1]));
    for (const entry of this.buffers) if (!entry.freed) quietly(() => entry.buf[Symbol.dispose]());
    for (const allocation of [...this.allocations].reverse()) {
      if (!allocation.freed) {
        quietly(() =>
          this.liveWrapper(allocation.address).deallocate(
            allocation.ptr,
            allocation.nbytes,
            this.#streamOf(allocation),
          ),
        );
      }
      allocation.freed = true;
    }
    for (const keeper of this.keepers.values()) quietly(() => keeper[Symbol.dispose]());
    for (const entry of [...this.resources].reverse()) if (!entry.private) quietly(() => entry.mr[Symbol.dispose]());
    for (const entry of this.streams) if (entry.pool === undefined) quietly(() => entry.stream[Symbol.dispose]());
    for (const pool of this.streamPools) quietly(() => pool[Symbol.dispose]());
    const { perDevice, device } = this.P.pristine;
    if (core.cuda.isAvailable()) quietly(() => core.cuda.setDevice(device));
    perDevice.forEach((mr, d) => quietly(() => core.setPerDeviceResource(d, mr)));
  }

  // Wrappers the packages made and this world never saw are released by the collector.
  async #settleCollector(done) {
    for (let attempt = 0; attempt < 3 && !done(); attempt++) {
      globalThis.gc?.();
      await turn();
      await turn();
    }
  }
}

function liveCounts({ liveAllocations, liveBytes, liveStreams, liveEvents, livePools }) {
  return { liveAllocations, liveBytes, liveStreams, liveEvents, livePools };
}

function noMore(a, b) {
  return Object.keys(a).every((key) => a[key] <= b[key]);
}

export function pick(list, i) {
  return list.length === 0 ? undefined : list[i % list.length];
}
