/**
 * The allocators `rmmjs replay` compares, each built as a stack with a StatisticsResourceAdaptor
 * on top (what the log asked for) and one between the allocator and its upstream (what it held).
 * The configurations are those of RMM's replay benchmark (cpp/benchmarks/replay/replay.cpp).
 */
import {
  cuda,
  CudaAsyncMemoryResource,
  CudaMemoryResource,
  ManagedMemoryResource,
  SystemMemoryResource,
  type DeviceMemoryResource,
} from '@rmmjs/core';
import { ArenaMemoryResource } from '@rmmjs/arena';
import { BinningMemoryResource } from '@rmmjs/binning';
import { FixedSizeMemoryResource } from '@rmmjs/fixed-size';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { PoolMemoryResource } from '@rmmjs/pool';
import { StatisticsResourceAdaptor } from '@rmmjs/statistics';
import { formatBytes } from '../format.js';
import type { AllocationLog } from '../log/allocation-log.js';

/** The allocators `rmmjs replay --resources` and `ReplayOptions.resources` can name. */
export const REPLAY_RESOURCES = ['cuda', 'managed', 'async', 'pool', 'arena', 'binning', 'fixed-size'] as const;
/** An allocator of `rmmjs replay`: one of `REPLAY_RESOURCES`. */
export type ReplayResourceName = (typeof REPLAY_RESOURCES)[number];

/** RMM's FixedSizeMemoryResource default block size: the largest allocation it serves. */
const FIXED_BLOCK_SIZE = 1 << 20;
// CUdevice_attribute CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED.
const MEMORY_POOLS_SUPPORTED = 115;

export function isReplayResource(name: string): name is ReplayResourceName {
  return (REPLAY_RESOURCES as readonly string[]).includes(name);
}

/** Why `name` cannot replay `log` here, or null. */
export function unavailableReason(name: ReplayResourceName, log: AllocationLog): string | null {
  const gpu = cuda.isAvailable();
  if ((name === 'managed' || name === 'async') && !gpu) return 'needs a GPU (host mode)';
  if (name === 'async' && cuda.deviceAttribute(MEMORY_POOLS_SUPPORTED) === 0) return 'the device has no memory pools';
  if (name === 'fixed-size' && log.largestAllocation > FIXED_BLOCK_SIZE) {
    return `allocations of up to ${formatBytes(log.largestAllocation)} exceed its ${formatBytes(FIXED_BLOCK_SIZE)} blocks`;
  }
  return null;
}

/** The resources replayed when none are named, in RMM's order (those that cannot run here say why). */
export const DEFAULT_REPLAY_RESOURCES: readonly ReplayResourceName[] = [
  'cuda',
  'pool',
  'arena',
  'binning',
  'managed',
  'async',
  'fixed-size',
];

export interface ReplayStack extends Disposable {
  /** Where the replay allocates: a StatisticsResourceAdaptor over the allocator. */
  top: StatisticsResourceAdaptor;
  /** Counts what the allocator took from its upstream (null for resources that take from the driver). */
  held: StatisticsResourceAdaptor | null;
  /** The allocator's class. */
  className: string;
}

/**
 * Builds `name` over the device's plain resource (CudaMemoryResource, or SystemMemoryResource in
 * host mode); with `size`, a LimitingResourceAdaptor of `size` bytes bounds what it can take (and
 * the pool's maximum and the arena's size are `size`).
 */
export function buildReplayStack(name: ReplayResourceName, size: number | undefined): ReplayStack {
  const made: DeviceMemoryResource[] = [];
  const make = <T extends DeviceMemoryResource>(mr: T): T => (made.push(mr), mr);
  const bounded = (mr: DeviceMemoryResource) => (size === undefined ? mr : make(new LimitingResourceAdaptor(mr, size)));
  const device = () => make(cuda.isAvailable() ? new CudaMemoryResource() : new SystemMemoryResource());
  const poolSize = size === undefined ? undefined : size - (size % 256);
  const pool = (upstream: DeviceMemoryResource) =>
    make(new PoolMemoryResource(upstream, { initialPoolSize: 0, maximumPoolSize: poolSize }));
  try {
    let held: StatisticsResourceAdaptor | null = null;
    const heldCounter = () => make(new StatisticsResourceAdaptor(bounded(device())));
    let allocator: DeviceMemoryResource;
    let top: DeviceMemoryResource;
    switch (name) {
      case 'cuda':
        top = bounded((allocator = device()));
        break;
      case 'managed':
        top = bounded((allocator = make(new ManagedMemoryResource())));
        break;
      case 'async':
        top = bounded((allocator = make(new CudaAsyncMemoryResource())));
        break;
      case 'pool':
        held = heldCounter();
        top = allocator = pool(held);
        break;
      case 'arena':
        held = heldCounter();
        top = allocator = make(new ArenaMemoryResource(held, size === undefined ? {} : { arenaSize: size }));
        break;
      case 'binning':
        // RMM's replay: bins of 256 KiB..4 MiB over a pool, larger allocations from the pool.
        held = heldCounter();
        top = allocator = make(new BinningMemoryResource(pool(held), { minSizeExponent: 18, maxSizeExponent: 22 }));
        break;
      case 'fixed-size':
        held = heldCounter();
        top = allocator = make(new FixedSizeMemoryResource(held, { blockSize: FIXED_BLOCK_SIZE }));
        break;
    }
    const counted = make(new StatisticsResourceAdaptor(top));
    return {
      top: counted,
      held,
      className: allocator.constructor.name,
      [Symbol.dispose]: () => disposeAll(made),
    };
  } catch (error) {
    disposeAll(made);
    throw error;
  }
}

function disposeAll(resources: DeviceMemoryResource[]): void {
  for (const mr of resources.reverse()) mr[Symbol.dispose]();
}
