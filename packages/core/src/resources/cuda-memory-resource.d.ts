import { DeviceMemoryResource } from '../device-memory-resource.js';
/** Device memory from cuMemAlloc / cuMemFree (RMM's cudaMalloc resource), on the current device. */
export declare class CudaMemoryResource extends DeviceMemoryResource {
    constructor();
}
