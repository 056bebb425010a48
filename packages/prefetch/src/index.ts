/**
 * @rmmjs/prefetch: RMM's prefetch_resource_adaptor, allocations prefetched to the device.
 *
 * @packageDocumentation
 */
export { PrefetchResourceAdaptor } from './prefetch-resource-adaptor.js';
