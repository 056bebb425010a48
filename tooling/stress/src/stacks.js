// Resource stacks by name: 'Statistics(Limiting(Pool(Cuda)))' is a StatisticsResourceAdaptor over
// a LimitingResourceAdaptor over a PoolMemoryResource over a CudaMemoryResource. Under the whole
// stack sits a meter (a LimitingResourceAdaptor without a practical limit) that says what the
// stack still holds from its base once it is closed.
import {
  CudaAsyncMemoryResource,
  CudaMemoryResource,
  ManagedMemoryResource,
  getCurrentDeviceResource,
} from '@rmmjs/core';
import { ArenaMemoryResource } from '@rmmjs/arena';
import { BinningMemoryResource } from '@rmmjs/binning';
import { FixedSizeMemoryResource } from '@rmmjs/fixed-size';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { PoolMemoryResource } from '@rmmjs/pool';
import { StatisticsResourceAdaptor } from '@rmmjs/statistics';
import { TrackingResourceAdaptor } from '@rmmjs/tracking';

const MiB = 1024 * 1024;

// Bases: what the stack allocates from (CUDA ones need a driver).
const BASES = {
  Current: () => getCurrentDeviceResource(),
  Cuda: () => new CudaMemoryResource(),
  Managed: () => new ManagedMemoryResource(),
  CudaAsync: (sizes) => new CudaAsyncMemoryResource({ initialPoolSize: sizes.poolSize / 4 }),
};
export const CUDA_BASES = ['Cuda', 'Managed', 'CudaAsync'];

// Layers, each over the resource below it.
const LAYERS = {
  Pool: (upstream, sizes) =>
    new PoolMemoryResource(upstream, { initialPoolSize: sizes.poolSize / 4, maximumPoolSize: sizes.poolSize }),
  Arena: (upstream, sizes) => new ArenaMemoryResource(upstream, { arenaSize: sizes.poolSize }),
  Binning: (upstream) => new BinningMemoryResource(upstream, { minSizeExponent: 10, maxSizeExponent: 14 }),
  FixedSize: (upstream) => new FixedSizeMemoryResource(upstream, { blockSize: 64 * 1024, blocksToPreallocate: 16 }),
  Limiting: (upstream, sizes) => new LimitingResourceAdaptor(upstream, sizes.limit),
  Statistics: (upstream) => new StatisticsResourceAdaptor(upstream),
  Tracking: (upstream) => new TrackingResourceAdaptor(upstream),
};

/** The names of a spec, outermost first: 'Statistics(Pool(Cuda))' -> ['Statistics', 'Pool', 'Cuda']. */
export function parseStack(spec) {
  const names = spec.replace(/\)+$/, '').split('(');
  const closing = spec.length - spec.replace(/\)+$/, '').length;
  if (closing !== names.length - 1) throw new Error(`stack "${spec}": unbalanced parentheses`);
  const base = names[names.length - 1];
  if (!(base in BASES)) throw new Error(`stack "${spec}": no base "${base}" (${Object.keys(BASES).join(', ')})`);
  for (const layer of names.slice(0, -1)) {
    if (!(layer in LAYERS)) throw new Error(`stack "${spec}": no layer "${layer}" (${Object.keys(LAYERS).join(', ')})`);
  }
  return names;
}

/** Whether the stack's base needs a CUDA driver. */
export const needsCuda = (spec) => CUDA_BASES.includes(parseStack(spec).at(-1));

/**
 * Builds a stack. `poolSize`: the size of pools and arenas (default 64 MiB); `limit`: the limit of
 * Limiting layers (default 1 GiB). Returns `{ spec, top, layers, meter, counters(), close() }`:
 * `layers` outermost first, `counters()` what the counting layers say now, `close()` disposes
 * every layer, then returns the bytes the meter still counts (0 when the stack gave everything
 * back) and disposes the meter and the base it made.
 */
export function buildStack(spec, { poolSize = 64 * MiB, limit = 1024 * MiB } = {}) {
  const names = parseStack(spec);
  const sizes = { poolSize, limit };
  const baseName = names.at(-1);
  const below = []; // the base (unless it is the current resource) and the meter
  const layers = [];
  const dispose = (list) => {
    for (const mr of list.splice(0)) mr[Symbol.dispose]();
  };
  try {
    const base = baseName === 'Current' ? BASES.Current() : BASES[baseName](sizes);
    if (baseName !== 'Current') below.unshift(base);
    const meter = new LimitingResourceAdaptor(base, Number.MAX_SAFE_INTEGER);
    below.unshift(meter);
    let top = meter;
    for (const name of names.slice(0, -1).reverse()) {
      top = LAYERS[name](top, sizes);
      layers.unshift({ name, mr: top });
    }
    return {
      spec,
      top,
      layers,
      meter,
      counters: () => countersOf(layers),
      close() {
        dispose(layers.map(({ mr }) => mr));
        const held = meter.getAllocatedBytes();
        dispose(below);
        return held;
      },
    };
  } catch (error) {
    dispose(layers.map(({ mr }) => mr));
    dispose(below);
    throw error;
  }
}

// The adaptors above the first sub-allocator: they see the requests of the stack's users as they
// are (below a pool they would see the pool's own requests).
const SUBALLOCATORS = ['Pool', 'Arena', 'Binning', 'FixedSize'];
function adaptorsOnTop(layers) {
  const end = layers.findIndex(({ name }) => SUBALLOCATORS.includes(name));
  return end === -1 ? layers : layers.slice(0, end);
}

// What each counting adaptor on top says: Statistics' current bytes and count, Limiting's and
// Tracking's bytes. The outermost of each kind only.
function countersOf(layers) {
  const counters = {};
  for (const { name, mr } of adaptorsOnTop(layers)) {
    if (name === 'Statistics' && counters.statistics === undefined) {
      const { currentBytes, currentCount } = mr.allocationCounts;
      counters.statistics = { currentBytes, currentCount };
    } else if (name === 'Limiting' && counters.limiting === undefined) {
      counters.limiting = mr.getAllocatedBytes();
    } else if (name === 'Tracking' && counters.tracking === undefined) {
      counters.tracking = mr.getAllocatedBytes();
    }
  }
  return counters;
}

/**
 * What `stack.counters()` must say while `capacities` (the live buffers' capacities) are all that
 * was allocated through the stack: Statistics and Tracking count requested bytes, Limiting rounds
 * each request up to 256 bytes.
 */
export function expectedCounters(stack, capacities) {
  const bytes = capacities.reduce((sum, n) => sum + n, 0);
  const rounded = capacities.reduce((sum, n) => sum + Math.ceil(n / 256) * 256, 0);
  const counters = {};
  for (const { name } of adaptorsOnTop(stack.layers)) {
    if (name === 'Statistics') counters.statistics ??= { currentBytes: bytes, currentCount: capacities.length };
    else if (name === 'Limiting') counters.limiting ??= rounded;
    else if (name === 'Tracking') counters.tracking ??= bytes;
  }
  return counters;
}
