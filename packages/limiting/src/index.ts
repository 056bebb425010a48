/**
 * @rmmjs/limiting: RMM's limiting_resource_adaptor, a limit on the bytes handed out.
 *
 * @packageDocumentation
 */
export { LimitingResourceAdaptor } from './limiting-resource-adaptor.js';
