/**
 * @rmmjs/binning: RMM's binning_memory_resource, requests routed to bins by size.
 *
 * @packageDocumentation
 */
export { BinningMemoryResource, type BinningMemoryResourceOptions } from './binning-memory-resource.js';
