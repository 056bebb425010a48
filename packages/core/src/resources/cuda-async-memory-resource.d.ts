import { DeviceMemoryResource } from '../device-memory-resource.js';
export interface CudaAsyncMemoryResourceOptions {
    /** Bytes to allocate and release at once, so the pool starts with them. Default: none. */
    initialPoolSize?: number | string;
    /** Unused pool memory above this is returned at synchronisation points. Default: no limit. */
    releaseThreshold?: number | string;
    /** Allow exporting allocations as POSIX file descriptors for CUDA IPC. */
    enableIpc?: boolean;
}
/** Stream-ordered allocation from a CUDA memory pool of its own (cuMemAllocFromPoolAsync). */
export declare class CudaAsyncMemoryResource extends DeviceMemoryResource {
    constructor(options?: CudaAsyncMemoryResourceOptions);
    /** The CUmemoryPool handle. */
    poolHandle(): bigint;
}
