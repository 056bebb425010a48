import { DeviceMemoryResource, registerResourceClass } from '../device-memory-resource.js';
import { native } from '../native.js';
/** Device memory from cuMemAlloc / cuMemFree (RMM's cudaMalloc resource), on the current device. */
export class CudaMemoryResource extends DeviceMemoryResource {
    constructor() {
        super(native.createCudaMemoryResource());
    }
}
registerResourceClass('CudaMemoryResource', CudaMemoryResource);
//# sourceMappingURL=cuda-memory-resource.js.map