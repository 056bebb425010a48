import { DeviceMemoryResource } from '../device-memory-resource.js';
/**
 * Stream-ordered allocation from an existing CUDA memory pool (such as the device's default
 * pool, `cuda.getDefaultMemPool()`), which must outlive this resource.
 */
export declare class CudaAsyncViewMemoryResource extends DeviceMemoryResource {
    constructor(poolHandle: bigint);
    /** The CUmemoryPool handle. */
    poolHandle(): bigint;
}
