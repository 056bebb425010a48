import { type DeviceMemoryResource, UpstreamResourceAdaptor } from '@rmmjs/core';
import {
  outOfRange,
  registerResourceClass,
  resourceHandle,
  validateOptions,
  validateSize,
  validateSizeOption,
  type ResourceHandle,
} from '@rmmjs/core/internal';
import { addon } from './addon.js';

/** RMM's default block size: 1 MiB. */
export const DEFAULT_BLOCK_SIZE = 1 << 20;
/** RMM's default number of blocks taken from the upstream at a time: 128. */
export const DEFAULT_BLOCKS_TO_PREALLOCATE = 128;

/** Options of `FixedSizeMemoryResource`. */
export interface FixedSizeMemoryResourceOptions {
  /** Bytes per block, aligned up to 256 (default 1 MiB); a byte string is accepted. */
  blockSize?: number | string;
  /** Blocks taken from the upstream at construction and whenever none is free (default 128). */
  blocksToPreallocate?: number;
}

function create(upstream: DeviceMemoryResource, options: FixedSizeMemoryResourceOptions | undefined): ResourceHandle {
  const upstreamHandle = resourceHandle(upstream, 'upstream');
  const { blockSize: blockSizeOption, blocksToPreallocate: blocksOption } =
    validateOptions<FixedSizeMemoryResourceOptions>(options);
  const blockSize =
    blockSizeOption === undefined ? DEFAULT_BLOCK_SIZE : validateSizeOption(blockSizeOption, 'options.blockSize');
  const blocks =
    blocksOption === undefined
      ? DEFAULT_BLOCKS_TO_PREALLOCATE
      : validateSize(blocksOption, 'options.blocksToPreallocate');
  // RMM divides by the block size and, with no blocks per chunk, hands out null pointers.
  if (blockSize === 0) throw outOfRange('options.blockSize', '>= 1 byte', blockSize);
  if (blocks === 0) throw outOfRange('options.blocksToPreallocate', '>= 1', blocks);
  const alignedBlockSize = Math.ceil(blockSize / 256) * 256;
  if (alignedBlockSize * blocks > Number.MAX_SAFE_INTEGER) {
    throw outOfRange(
      'options.blocksToPreallocate',
      `<= ${Math.floor(Number.MAX_SAFE_INTEGER / alignedBlockSize)} for blocks of ${alignedBlockSize} bytes`,
      blocks,
    );
  }
  return addon.create(upstreamHandle, blockSize, blocks);
}

/**
 * Hands out blocks of one size (`blockSize`, aligned up to 256) from chunks of
 * `blocksToPreallocate` blocks taken from `upstream`: one chunk at construction, another
 * whenever no block is free. A larger request fails with `OutOfMemoryError` "Maximum
 * allocation size exceeded". Blocks freed on a stream are reused on it at once and on other
 * streams after an event wait. Every chunk goes back to the upstream when the resource is
 * destroyed.
 */
export class FixedSizeMemoryResource extends UpstreamResourceAdaptor {
  constructor(upstream: DeviceMemoryResource, options?: FixedSizeMemoryResourceOptions) {
    super(create(upstream, options));
  }

  /** The size of every block (the `blockSize` option aligned up to 256). */
  getBlockSize(): number {
    return addon.blockSize(resourceHandle(this, 'this'));
  }
}

registerResourceClass('FixedSizeMemoryResource', FixedSizeMemoryResource);
