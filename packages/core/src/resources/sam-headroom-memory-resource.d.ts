import { DeviceMemoryResource } from '../device-memory-resource.js';
/**
 * System-allocated memory (SAM) that keeps `headroom` bytes of GPU memory free: allocations go
 * to the GPU while free memory stays above the headroom, else they stay in host memory.
 * Needs pageable memory access (HMM or ATS).
 */
export declare class SamHeadroomMemoryResource extends DeviceMemoryResource {
    constructor(headroom: number | string);
}
