/**
 * @rmmjs/tracking: RMM's tracking_resource_adaptor, every outstanding allocation remembered.
 *
 * @packageDocumentation
 */
export { TrackingResourceAdaptor, type TrackingResourceAdaptorOptions } from './tracking-resource-adaptor.js';
