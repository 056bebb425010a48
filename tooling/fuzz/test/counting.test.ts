// The counters model (src/counting.js) tells native resources apart by their share id, not their
// address alone: a resource that goes frees its memory, and the next one made (say, the adaptor
// `statistics()` puts on top) may get the same address. Its counters start from nothing; the gone
// one's (here a free of a null pointer, which a statistics adaptor counts) are not its own.
import { describe, expect, it } from 'vitest';
import { CountingModel } from '../src/counting.js';
import { FuzzFailure } from '../src/oracle.js';

const zero = { currentBytes: 0, currentCount: 0, peakBytes: 0, peakCount: 0, totalBytes: 0, totalCount: 0 };
type Counts = typeof zero;

// Stand-ins for the resources: what the model reads of them is their class name, their upstream,
// their native handle (an address and a share id) and the counters of a statistics adaptor.
class FakeResource {
  handle: { address: bigint; id: string };
  constructor(address: bigint, id: string) {
    this.handle = { address, id };
  }
}
class UpstreamResourceAdaptor extends FakeResource {
  upstreamMr: FakeResource;
  constructor(address: bigint, id: string, upstream: FakeResource) {
    super(address, id);
    this.upstreamMr = upstream;
  }
}
class LimitingResourceAdaptor extends FakeResource {
  getAllocatedBytes(): number {
    return 0;
  }
}
class StatisticsResourceAdaptor extends UpstreamResourceAdaptor {
  allocationCounts: Counts = { ...zero };
}
class TrackingResourceAdaptor extends UpstreamResourceAdaptor {}
class PoolMemoryResource extends UpstreamResourceAdaptor {}
class SystemMemoryResource extends FakeResource {}

interface Entry {
  mr: FakeResource;
  address: bigint;
  disposed: boolean;
}

function fakeWorld() {
  const resources: Entry[] = [];
  const world = {
    P: {
      core: { UpstreamResourceAdaptor },
      internal: {
        resourceHandle: (mr: FakeResource) => mr.handle,
        native: { resourceShare: (handle: { id: string }) => handle.id },
      },
    },
    resources,
    pending: new Set(),
    madeJsResources: false,
    rootEntry: undefined as Entry | undefined,
    resourceEntry: (mr: FakeResource) => resources.find((e) => e.mr === mr),
  };
  const counting = new CountingModel(world);
  const entryOf = (mr: FakeResource): Entry => {
    const entry = { mr, address: mr.handle.address, disposed: false };
    resources.push(entry);
    return entry;
  };
  return {
    counting,
    /** The run's root, over the device's default resource. */
    root(mr: FakeResource) {
      world.rootEntry = entryOf(mr);
      counting.created(world.rootEntry, mr);
      return world.rootEntry;
    },
    /** A resource the commands made. */
    created(mr: FakeResource, upstream?: FakeResource) {
      const entry = entryOf(mr);
      counting.created(entry, mr, upstream);
      return entry;
    },
    /** A wrapper a package handed out. */
    adopted(mr: FakeResource) {
      const entry = entryOf(mr);
      counting.adopted(entry, mr);
      return entry;
    },
  };
}

describe('the counters model', () => {
  const A = 0x2000n;

  function afterNullFree() {
    const world = fakeWorld();
    const root = new LimitingResourceAdaptor(0x1000n, '1');
    world.created(root);
    const first = new StatisticsResourceAdaptor(A, '2', root);
    const entry = world.created(first, root);
    // deallocate(0n, 2738) through the adaptor: counted as a free, as in RMM.
    world.counting.statisticsNullFree(A, 2738);
    first.allocationCounts = { ...zero, currentBytes: -2738, currentCount: -1 };
    world.counting.checkAll('after the free');
    expect(world.counting.topPair(A)).toEqual({ ...zero, currentBytes: -2738, currentCount: -1 });
    return { world, root, first, entry };
  }

  it("does not take a new adaptor at a gone one's address for the gone one", () => {
    const { world, root, entry } = afterNullFree();
    entry.disposed = true; // its last reference: the native adaptor is gone
    const second = new StatisticsResourceAdaptor(A, '3', root); // what enableStatistics() made
    world.adopted(second);
    expect(world.counting.isExact(A)).toBe(false);
    expect(world.counting.stackKnown(A)).toBe(false);
    expect(() => world.counting.checkAll('after statistics scopes')).not.toThrow();
  });

  it('still knows the counters of the same native adaptor under another wrapper', () => {
    const { world, root, entry } = afterNullFree();
    entry.disposed = true; // something else still holds the native adaptor
    const again = new StatisticsResourceAdaptor(A, '2', root);
    world.adopted(again);
    expect(world.counting.isExact(A)).toBe(true);
    expect(world.counting.stackDepth(A)).toBe(1);
    expect(() => world.counting.checkAll('after adopting it')).toThrow(
      new FuzzFailure(
        'after adopting it: StatisticsResourceAdaptor.allocationCounts.currentBytes is 0, the model counted -2738',
      ),
    );
    again.allocationCounts = { ...zero, currentBytes: -2738, currentCount: -1 };
    expect(() => world.counting.checkAll('after adopting it')).not.toThrow();
  });
});

// A block of a suballocator may start one of its chunks; freed through a resource that passes frees
// down to the heap (or the driver), the chunk would go while the suballocator still hands it out.
describe('frees through one resource of memory another handed out', () => {
  const world = fakeWorld();
  const root = new LimitingResourceAdaptor(0x1000n, '1');
  world.root(root);
  const pool = new PoolMemoryResource(0x2000n, '2', root);
  world.created(pool, root);
  const otherPool = new PoolMemoryResource(0x3000n, '3', root);
  world.created(otherPool, root);
  const tracking = new TrackingResourceAdaptor(0x4000n, '4', root);
  world.created(tracking, root);
  const system = new SystemMemoryResource(0x5000n, '5');
  world.created(system);
  const trackingOverPool = new TrackingResourceAdaptor(0x6000n, '6', pool);
  world.created(trackingOverPool, pool);

  it('may free a chunk: a block of a pool, through a resource over the heap', () => {
    expect(world.counting.mayFreeAChunk(0x4000n, 0x2000n)).toBe(true); // tracking over the root
    expect(world.counting.mayFreeAChunk(0x5000n, 0x2000n)).toBe(true); // a system resource
    expect(world.counting.mayFreeAChunk(0x1000n, 0x6000n)).toBe(true); // the root; a block below an adaptor
  });

  it('does not: through a suballocator, which frees only its own blocks', () => {
    expect(world.counting.mayFreeAChunk(0x3000n, 0x2000n)).toBe(false);
    expect(world.counting.mayFreeAChunk(0x6000n, 0x4000n)).toBe(false); // through an adaptor over a pool
  });

  it('does not: memory straight from the heap, which no suballocator holds', () => {
    expect(world.counting.mayFreeAChunk(0x4000n, 0x5000n)).toBe(false);
    expect(world.counting.mayFreeAChunk(0x5000n, 0x1000n)).toBe(false);
  });

  it('may, where the model does not know where frees end', () => {
    expect(world.counting.mayFreeAChunk(0x9000n, 0x2000n)).toBe(true);
    expect(world.counting.mayFreeAChunk(0x4000n, 0x9000n)).toBe(true);
  });
});
