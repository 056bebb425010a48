/**
 * @rmmjs/pool: RMM's pool_memory_resource, a coalescing best-fit, stream-ordered sub-allocator.
 *
 * @packageDocumentation
 */
export { PoolMemoryResource, type PoolMemoryResourceOptions } from './pool-memory-resource.js';
