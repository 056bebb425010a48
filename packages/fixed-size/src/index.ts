/**
 * @rmmjs/fixed-size: RMM's fixed_size_memory_resource, blocks of one size.
 *
 * @packageDocumentation
 */
export {
  FixedSizeMemoryResource,
  DEFAULT_BLOCK_SIZE,
  DEFAULT_BLOCKS_TO_PREALLOCATE,
  type FixedSizeMemoryResourceOptions,
} from './fixed-size-memory-resource.js';
