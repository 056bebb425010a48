// Resource stacks by name: 'Statistics(Limiting(Pool(Cuda)))' is a StatisticsResourceAdaptor over
// a LimitingResourceAdaptor over a PoolMemoryResource over a CudaMemoryResource. The names are the
// registered resources' (their package.json's "rmmjs" block) without "MemoryResource" or
// "ResourceAdaptor", each made with its registration's example arguments; `Current` is the current
// device resource. Under the whole stack sits a meter (a LimitingResourceAdaptor without a
// practical limit) that says what the stack still holds from its base once it is closed.
import { cuda, getCurrentDeviceResource } from '@rmmjs/core';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { exampleArguments, importResource, shortName, workspaceRegistrations } from '@rmmjs/registry';

const MiB = 1024 * 1024;

// The registered resources that have example arguments, by the name a spec uses, with their class.
const registered = new Map(
  await Promise.all(
    workspaceRegistrations()
      .filter((registration) => registration.example !== undefined)
      .map(async (registration) => [
        shortName(registration.class),
        { registration, Class: await importResource(registration) },
      ]),
  ),
);

function make({ registration, Class }, upstream, poolSize) {
  const args = exampleArguments(registration, { budget: poolSize, memoryPool: () => cuda.getDefaultMemPool() });
  return registration.kind === 'base' ? new Class(...args) : new Class(upstream, ...args);
}

// Bases: what the stack allocates from (CUDA ones need a driver); layers, each over the resource below it.
const BASES = {
  Current: () => getCurrentDeviceResource(),
  ...Object.fromEntries(
    [...registered]
      .filter(([, r]) => r.registration.kind === 'base')
      .map(([name, r]) => [name, (poolSize) => make(r, undefined, poolSize)]),
  ),
};
export const CUDA_BASES = [...registered]
  .filter(([, { registration }]) => registration.kind === 'base' && registration.needs.includes('cuda'))
  .map(([name]) => name);
const LAYERS = Object.fromEntries(
  [...registered]
    .filter(([, r]) => r.registration.kind !== 'base')
    .map(([name, r]) => [name, (upstream, poolSize) => make(r, upstream, poolSize)]),
);

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
 * Builds a stack. `poolSize`: the memory budget its resources' example arguments share out (pools
 * and arenas of that size, limits of it; default 64 MiB). Returns
 * `{ spec, top, layers, meter, counters(), close() }`:
 * `layers` outermost first, `counters()` what the counting layers say now, `close()` disposes
 * every layer, then returns the bytes the meter still counts (0 when the stack gave everything
 * back) and disposes the meter and the base it made.
 */
export function buildStack(spec, { poolSize = 64 * MiB } = {}) {
  const names = parseStack(spec);
  const baseName = names.at(-1);
  const below = []; // the base (unless it is the current resource) and the meter
  const layers = [];
  const dispose = (list) => {
    for (const mr of list.splice(0)) mr[Symbol.dispose]();
  };
  try {
    const base = BASES[baseName](poolSize);
    if (baseName !== 'Current') below.unshift(base);
    const meter = new LimitingResourceAdaptor(base, Number.MAX_SAFE_INTEGER);
    below.unshift(meter);
    let top = meter;
    for (const name of names.slice(0, -1).reverse()) {
      top = LAYERS[name](top, poolSize);
      layers.unshift({ name, mr: top });
    }
    return {
      spec,
      top,
      layers,
      meter,
      counters: () => currentCounters(layers),
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
function adaptorsOnTop(layers) {
  const end = layers.findIndex(({ name }) => registered.get(name).registration.kind === 'suballocator');
  return end === -1 ? layers : layers.slice(0, end);
}

// The counting adaptors on top (the outermost of each kind), with their registered counters.
function countingLayers(layers) {
  const seen = new Set();
  return adaptorsOnTop(layers).filter(({ name }) => {
    const counted = Object.keys(registered.get(name).registration.counters).length > 0 && !seen.has(name);
    seen.add(name);
    return counted;
  });
}

const countersOf = ({ name }) => registered.get(name).registration.counters;

/**
 * What each counting adaptor on top says now, by layer name and registered counter: a Statistics
 * counter gives its current bytes and count.
 */
function currentCounters(layers) {
  const counters = {};
  for (const layer of countingLayers(layers)) {
    counters[layer.name] = {};
    for (const [member, unit] of Object.entries(countersOf(layer))) {
      const value = typeof layer.mr[member] === 'function' ? layer.mr[member]() : layer.mr[member];
      counters[layer.name][member] =
        unit === 'statistics' ? { currentBytes: value.currentBytes, currentCount: value.currentCount } : value;
    }
  }
  return counters;
}

/**
 * What `stack.counters()` must say while `capacities` (the live buffers' capacities) are all that
 * was allocated through the stack, by each counter's registered unit: requested bytes, bytes each
 * rounded up to 256, the count of allocations, or a Statistics' current bytes and count.
 */
export function expectedCounters(stack, capacities) {
  const bytes = capacities.reduce((sum, n) => sum + n, 0);
  const expected = {
    bytes,
    alignedBytes: capacities.reduce((sum, n) => sum + Math.ceil(n / 256) * 256, 0),
    count: capacities.length,
    statistics: { currentBytes: bytes, currentCount: capacities.length },
  };
  const counters = {};
  for (const layer of countingLayers(stack.layers))
    counters[layer.name] = Object.fromEntries(
      Object.entries(countersOf(layer)).map(([member, unit]) => [member, expected[unit]]),
    );
  return counters;
}
