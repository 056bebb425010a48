import { DeviceMemoryResource, registerResourceClass, resourceHandle } from '../device-memory-resource.js';
import { invalidArgType } from '../errors.js';
import { native } from '../native.js';

/**
 * Stream-ordered allocation from an existing CUDA memory pool (such as the device's default
 * pool, `cuda.getDefaultMemPool()`), which must outlive this resource.
 */
export class CudaAsyncViewMemoryResource extends DeviceMemoryResource {
  constructor(poolHandle: bigint) {
    if (typeof poolHandle !== 'bigint') throw invalidArgType('poolHandle', 'of type bigint', poolHandle);
    super(native.createCudaAsyncViewMemoryResource(poolHandle));
  }

  /** The CUmemoryPool handle. */
  poolHandle(): bigint {
    return native.asyncPoolHandle(resourceHandle(this, 'this'));
  }
}

registerResourceClass('CudaAsyncViewMemoryResource', CudaAsyncViewMemoryResource);
