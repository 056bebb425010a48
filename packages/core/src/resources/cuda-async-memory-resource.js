import { DeviceMemoryResource, registerResourceClass, resourceHandle } from '../device-memory-resource.js';
import { native } from '../native.js';
import { validateBoolean, validateOptions, validateSizeOption } from '../validate.js';
/** Stream-ordered allocation from a CUDA memory pool of its own (cuMemAllocFromPoolAsync). */
export class CudaAsyncMemoryResource extends DeviceMemoryResource {
    constructor(options) {
        const { initialPoolSize, releaseThreshold, enableIpc = false } = validateOptions(options);
        super(native.createCudaAsyncMemoryResource(initialPoolSize === undefined ? undefined : validateSizeOption(initialPoolSize, 'options.initialPoolSize'), releaseThreshold === undefined ? undefined : validateSizeOption(releaseThreshold, 'options.releaseThreshold'), validateBoolean(enableIpc, 'options.enableIpc')));
    }
    /** The CUmemoryPool handle. */
    poolHandle() {
        return native.asyncPoolHandle(resourceHandle(this, 'this'));
    }
}
registerResourceClass('CudaAsyncMemoryResource', CudaAsyncMemoryResource);
//# sourceMappingURL=cuda-async-memory-resource.js.map