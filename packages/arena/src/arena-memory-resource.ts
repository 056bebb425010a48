import { type DeviceMemoryResource, UpstreamResourceAdaptor } from '@rmmjs/core';
import {
  invalidArgType,
  registerResourceClass,
  resourceHandle,
  validateBoolean,
  validateOptions,
  validateSizeOption,
} from '@rmmjs/core/internal';
import { addon, type ArenaSummary } from './addon.js';

/** Options of `ArenaMemoryResource`. */
export interface ArenaMemoryResourceOptions {
  /**
   * Size of the global arena taken from `upstream` once: bytes or a byte string (`"1 GiB"`),
   * aligned down to 256; at least 1 MiB. Default: half the free memory of the upstream's device
   * (in host mode: half the available host memory, at most 256 MiB).
   */
  arenaSize?: number | string;
  /** Write the global arena's summary to the debug logger when an allocation fails. Default false. */
  dumpLogOnFailure?: boolean;
}

/**
 * RMM's arena allocator: a global arena taken from `upstream` once, cut into superblocks (1 MiB
 * and up) that per-thread arenas (the default streams) and per-stream arenas (other streams) take
 * and serve requests of up to 1 MiB from; larger requests come from the global arena. On failure
 * every arena returns its superblocks and the allocation is tried once more, then
 * `OutOfMemoryError` "Maximum pool size exceeded ...: No room in arena.". Thread-safe; the
 * upstream memory goes back when the resource does.
 */
export class ArenaMemoryResource extends UpstreamResourceAdaptor {
  constructor(upstream: DeviceMemoryResource, options?: ArenaMemoryResourceOptions) {
    const handle = resourceHandle(upstream, 'upstream');
    const { arenaSize, dumpLogOnFailure } = validateOptions<ArenaMemoryResourceOptions>(options);
    const size = arenaSize === undefined ? undefined : validateSizeOption(arenaSize, 'options.arenaSize');
    const dump = dumpLogOnFailure === undefined ? false : validateBoolean(dumpLogOnFailure, 'options.dumpLogOnFailure');
    super(addon.create(handle, size, dump));
  }
}

registerResourceClass('ArenaMemoryResource', ArenaMemoryResource);

/**
 * Where the memory of `mr` is now: the global arena's size, how many per-thread and per-stream
 * arenas hold superblocks, and what the global arena has left. For diagnostics and tests (beyond
 * RMM, whose arena only writes this to its log on failure); the counts change as threads and
 * streams allocate, so read them when no other thread is using `mr`.
 */
export function arenaSummary(mr: ArenaMemoryResource): ArenaSummary {
  if (!(mr instanceof ArenaMemoryResource)) throw invalidArgType('mr', 'an instance of ArenaMemoryResource', mr);
  return addon.summary(resourceHandle(mr, 'mr'));
}
