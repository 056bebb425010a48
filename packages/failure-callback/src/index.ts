/**
 * @rmmjs/failure-callback: RMM's failure_callback_resource_adaptor, a callback asked on out of memory.
 *
 * @packageDocumentation
 */
export { FailureCallbackResourceAdaptor, type FailureCallback } from './failure-callback-resource-adaptor.js';
