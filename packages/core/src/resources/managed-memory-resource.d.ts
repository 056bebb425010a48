import { DeviceMemoryResource } from '../device-memory-resource.js';
/** Unified (managed) memory from cuMemAllocManaged, accessible from host and device. */
export declare class ManagedMemoryResource extends DeviceMemoryResource {
    constructor();
}
