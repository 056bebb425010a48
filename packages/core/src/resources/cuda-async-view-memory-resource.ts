import { DeviceMemoryResource, registerResourceClass, resourceHandle } from '../device-memory-resource.js';
import { invalidArgType, outOfRange } from '../errors.js';
import { native } from '../native.js';

/**
 * Stream-ordered allocation from an existing CUDA memory pool (such as the device's default
 * pool, `cuda.getDefaultMemPool()`), which must outlive this resource. Its `device` is the device
 * whose default pool it is; for any other pool, the device current when it is made.
 */
export class CudaAsyncViewMemoryResource extends DeviceMemoryResource {
  constructor(poolHandle: bigint) {
    if (typeof poolHandle !== 'bigint') throw invalidArgType('poolHandle', 'of type bigint', poolHandle);
    if (poolHandle < 0n || poolHandle >= 2n ** 64n) {
      throw outOfRange('poolHandle', 'a 64-bit unsigned integer (0 to 2^64 - 1)', poolHandle);
    }
    super(native.createCudaAsyncViewMemoryResource(poolHandle));
  }

  /** The CUmemoryPool handle. */
  poolHandle(): bigint {
    return native.asyncPoolHandle(resourceHandle(this, 'this'), true);
  }
}

registerResourceClass('CudaAsyncViewMemoryResource', CudaAsyncViewMemoryResource);
