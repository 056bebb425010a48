// A model of the counters of the adaptors that register counters (limiting, tracking, statistics).
// An allocation through a resource reaches every adaptor down its chain of pass-through adaptors
// with the same size, so the model knows their counters exactly, until a suballocator (pool, arena,
// binning, fixed-size) takes memory from the chain in blocks of its own: from then on only the end
// (0 once everything is freed) is checked.
import { workspaceRegistrations } from '@rmmjs/registry';
import { FuzzFailure } from './oracle.js';

// What the model needs to know of each class, from the registrations (package.json's "rmmjs"
// blocks): pass-through adaptors, suballocators, resources that free whatever their allocator takes
// back (the C heap, the driver, as the device's default resource does), those that call JavaScript,
// and each class's counters.
const registered = new Map(workspaceRegistrations().map((registration) => [registration.class, registration]));
const classesWhere = (test) => new Set([...registered.values()].filter(test).map((registration) => registration.class));
const passThrough = classesWhere((r) => r.kind === 'adaptor');
const suballocators = classesWhere((r) => r.kind === 'suballocator');
const freeAnything = classesWhere((r) => r.freesAnything);
const callsJavaScript = [...classesWhere((r) => r.callsJavaScript !== undefined)];
const freesThroughJavaScript = [...classesWhere((r) => r.callsJavaScript === 'always')];

const zeroPair = () => ({ currentBytes: 0, currentCount: 0, peakBytes: 0, peakCount: 0, totalBytes: 0, totalCount: 0 });
const align256 = (n) => Math.ceil(n / 256) * 256;

export class CountingModel {
  constructor(world) {
    this.world = world;
    this.nodes = new Map(); // native address -> node
  }

  /** A resource the commands made (`upstream`: the resource it was made over). */
  created(entry, mr, upstream, kind = mr.constructor.name) {
    // A new native resource may have the address of one that is gone: its node is replaced.
    if (entry.address === undefined) return;
    const upstreamAddress = upstream === undefined ? undefined : this.world.resourceEntry(upstream)?.address;
    const node = {
      kind,
      identity: this.#identity(mr),
      upstream: upstreamAddress,
      exact: true,
      extra: [],
      bytes: 0,
      alignedBytes: 0,
      count: 0,
      stack: [zeroPair()],
    };
    this.nodes.set(entry.address, node);
    if (suballocators.has(kind) && upstreamAddress !== undefined) this.inexact(upstreamAddress);
  }

  /** A wrapper a package made: a known native resource, or one whose history is unknown. */
  adopted(entry, mr) {
    const kind = mr.constructor.name;
    if (entry.address === undefined) return;
    // A known native resource again; unless the address is a gone one's, reused by another resource
    // (one a package made, such as the adaptor enableStatistics() puts on top): its share id differs.
    const known = this.nodes.get(entry.address);
    const identity = this.#identity(mr);
    if (known?.kind === kind && known.identity === identity) return;
    // Its own counters have an unknown history; what it passes on to its upstream is known.
    const node = {
      kind,
      identity,
      exact: false,
      unknownUpstream: false,
      extra: [],
      stack: [zeroPair()],
      stackUnknown: true,
    };
    this.nodes.set(entry.address, node);
    if (mr instanceof this.world.P.core.UpstreamResourceAdaptor) {
      try {
        node.upstream = this.world.resourceEntry(mr.upstreamMr)?.address;
      } catch {
        // a disposed wrapper
      }
      node.unknownUpstream = node.upstream === undefined;
      if (suballocators.has(kind) && node.upstream !== undefined) this.inexact(node.upstream);
    }
  }

  /**
   * Which native resource `mr` is. Its address may be a gone one's (the memory of a freed resource
   * reused); its share id never is: core's table hands out each id once and forgets it when the
   * resource goes.
   */
  #identity(mr) {
    const { internal } = this.world.P;
    return internal.native.resourceShare(internal.resourceHandle(mr, 'mr'));
  }

  /** `bin` now serves some of the allocations of the binning resource at `address`. */
  addedBin(address, bin) {
    const binAddress = this.world.resourceEntry(bin)?.address;
    this.nodes.get(address)?.extra.push(binAddress);
    if (binAddress !== undefined) this.inexact(binAddress);
  }

  /**
   * Whether an allocation through `address` may run JavaScript (a CallbackMemoryResource or a
   * failure callback below it), which may do anything, so the call may fail in any documented way.
   */
  reachesJs(address) {
    return this.#hasBelow(address, callsJavaScript);
  }

  /**
   * Whether a free through `address` may run JavaScript: a CallbackMemoryResource below it (a
   * failure callback runs only when an allocation fails).
   */
  freesThroughJs(address) {
    return this.#hasBelow(address, freesThroughJavaScript);
  }

  #hasBelow(address, kinds) {
    const seen = new Set();
    const todo = [address];
    while (todo.length > 0) {
      const a = todo.pop();
      if (a === undefined || seen.has(a)) continue;
      seen.add(a);
      const node = this.nodes.get(a);
      if (node === undefined || node.unknownUpstream) return this.world.madeJsResources;
      if (kinds.includes(node.kind)) return true;
      todo.push(node.upstream, ...node.extra);
    }
    return false;
  }

  /**
   * Whether a free through `target` of memory `owner` handed out may give back memory that a
   * suballocator still uses: below `owner` a suballocator holds chunks (one of its blocks may start
   * one), and `target` passes frees down to a resource that frees whatever its allocator takes back,
   * the chunk included. Undefined behaviour no resource can tell (as in RMM): the suballocator would
   * go on handing out memory that is gone.
   */
  mayFreeAChunk(target, owner) {
    return this.#freesEndIn(target) !== 'suballocator' && this.#freesEndIn(owner) !== 'heap';
  }

  // Where frees through `address` end, past pass-through adaptors: 'heap' (a resource that frees
  // anything its allocator takes back; the run's root is over the device's default one),
  // 'suballocator', or 'unknown' (JavaScript, a driver pool, a chain the model lost).
  #freesEndIn(address) {
    const seen = new Set();
    for (let a = address; a !== undefined && !seen.has(a);) {
      seen.add(a);
      if (a === this.world.rootEntry?.address) return 'heap';
      const node = this.nodes.get(a);
      if (node === undefined || node.unknownUpstream) return 'unknown';
      if (freeAnything.has(node.kind)) return 'heap';
      if (suballocators.has(node.kind)) return 'suballocator';
      if (!passThrough.has(node.kind)) return 'unknown';
      a = node.upstream;
    }
    return 'unknown';
  }

  /** Counters below `address` can no longer be predicted. */
  inexact(address) {
    for (const node of this.#chain(address)) node.exact = false;
  }

  /** The buffer's resource chain is no longer predictable (JavaScript moved it mid-operation). */
  unknownBuffer(buf) {
    const entry = this.world.bufferEntry(buf);
    if (entry?.address !== undefined) this.inexact(entry.address);
  }

  *#chain(address) {
    const seen = new Set();
    for (let a = address; a !== undefined && !seen.has(a);) {
      seen.add(a);
      const node = this.nodes.get(a);
      if (node === undefined) return;
      yield node;
      a = passThrough.has(node.kind) ? node.upstream : undefined;
    }
  }

  /** `nbytes` were allocated through the resource at `address`. */
  allocated(address, nbytes, mr) {
    if (address === undefined) return;
    if (nbytes === 0) {
      // Core never asks a resource for 0 bytes; the statistics adaptor's own allocate(0) counts one.
      const node = this.nodes.get(address);
      if (mr !== undefined && node?.kind === 'StatisticsResourceAdaptor' && mr.constructor.name === node.kind) {
        add(node.stack.at(-1), 0);
      }
      return;
    }
    for (const node of this.#chain(address)) {
      node.bytes += nbytes;
      node.alignedBytes += align256(nbytes);
      node.count += 1;
      add(node.stack.at(-1), nbytes);
    }
  }

  /** `nbytes` at a non-null pointer were freed through the resource at `address`. */
  deallocated(address, nbytes) {
    if (address === undefined || nbytes === 0) return;
    for (const node of this.#chain(address)) {
      node.bytes -= nbytes;
      node.alignedBytes -= align256(nbytes);
      node.count -= 1;
      const top = node.stack.at(-1);
      top.currentBytes -= nbytes;
      top.currentCount -= 1;
    }
  }

  /** A statistics adaptor's deallocate(0n, nbytes): counted as a free (as RMM does). */
  statisticsNullFree(address, nbytes) {
    const node = this.nodes.get(address);
    if (node === undefined) return;
    const top = node.stack.at(-1);
    top.currentBytes -= nbytes;
    top.currentCount -= 1;
  }

  push(address) {
    const node = this.nodes.get(address);
    // An async copy in flight counts its allocation or free when it ends, into whichever pair is on top then.
    if (this.world.pending.size > 0) node.exact = false;
    const top = { ...node.stack.at(-1) };
    node.stack.push(zeroPair());
    return top;
  }

  /** The pair popped, or undefined when only one is left (the call must be ERR_OUT_OF_RANGE). */
  pop(address) {
    const node = this.nodes.get(address);
    if (this.world.pending.size > 0) node.exact = false;
    if (node.stack.length < 2) return undefined;
    const top = node.stack.pop();
    const below = node.stack.at(-1);
    below.peakBytes = Math.max(below.peakBytes, below.currentBytes + top.peakBytes);
    below.peakCount = Math.max(below.peakCount, below.currentCount + top.peakCount);
    below.currentBytes += top.currentBytes;
    below.currentCount += top.currentCount;
    below.totalBytes += top.totalBytes;
    below.totalCount += top.totalCount;
    return top;
  }

  /** Scopes pushed and popped the stack of the adaptor at `address`: its depth and counts are unknown. */
  unknownStack(address) {
    const node = this.nodes.get(address);
    if (node === undefined) return;
    node.exact = false;
    node.stackUnknown = true;
  }

  stackKnown(address) {
    const node = this.nodes.get(address);
    return node !== undefined && !node.stackUnknown && !node.unknownUpstream;
  }

  stackDepth(address) {
    return this.nodes.get(address)?.stack.length;
  }

  /** Whether the adaptor's counters are known now (not while async copies that allocate are in flight). */
  isExact(address) {
    return this.nodes.get(address)?.exact === true && this.world.pending.size === 0;
  }

  topPair(address) {
    return this.nodes.get(address)?.stack.at(-1);
  }

  /** Compares every predictable counter with the adaptor's own. */
  checkAll(when) {
    for (const [address, node] of this.nodes) {
      if (!node.exact) continue;
      const entry = this.world.resources.find((e) => e.address === address && !e.disposed);
      if (entry === undefined) continue;
      const mr = entry.mr;
      const fail = (what, actual, expected) => {
        throw new FuzzFailure(`${when}: ${node.kind}.${what} is ${actual}, the model counted ${expected}`);
      };
      for (const [member, unit] of Object.entries(registered.get(node.kind)?.counters ?? {})) {
        const actual = typeof mr[member] === 'function' ? mr[member]() : mr[member];
        const shown = typeof mr[member] === 'function' ? `${member}()` : member;
        if (unit === 'statistics') {
          const expected = node.stack.at(-1);
          for (const key of Object.keys(expected)) {
            if (actual[key] !== expected[key]) fail(`${shown}.${key}`, actual[key], expected[key]);
          }
        } else {
          const expected = unit === 'bytes' ? node.bytes : unit === 'alignedBytes' ? node.alignedBytes : node.count;
          if (actual !== expected) fail(shown, actual, expected);
        }
      }
    }
  }
}

function add(pair, nbytes) {
  pair.currentBytes += nbytes;
  pair.currentCount += 1;
  pair.totalBytes += nbytes;
  pair.totalCount += 1;
  pair.peakBytes = Math.max(pair.peakBytes, pair.currentBytes);
  pair.peakCount = Math.max(pair.peakCount, pair.currentCount);
}
