import { DeviceMemoryResource } from '../device-memory-resource.js';
/** Page-locked host memory (cuMemHostAlloc), device-accessible, 256-byte aligned. */
export declare class PinnedHostMemoryResource extends DeviceMemoryResource {
    constructor();
}
