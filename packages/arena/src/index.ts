/**
 * @rmmjs/arena: RMM's arena_memory_resource, a suballocator for low fragmentation and scalable concurrency.
 *
 * @packageDocumentation
 */
export { ArenaMemoryResource, arenaSummary, type ArenaMemoryResourceOptions } from './arena-memory-resource.js';
export type { ArenaSummary } from './addon.js';
