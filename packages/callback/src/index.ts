/**
 * @rmmjs/callback: RMM's callback_memory_resource, allocations made by JavaScript functions.
 *
 * @packageDocumentation
 */
export { CallbackMemoryResource, type AllocateCallback, type DeallocateCallback } from './callback-memory-resource.js';
