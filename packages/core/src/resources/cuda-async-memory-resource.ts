import { DeviceMemoryResource, registerResourceClass, resourceHandle } from '../device-memory-resource.js';
import { native } from '../native.js';
import { validateBoolean, validateOptions, validateSizeOption } from '../validate.js';

/** Options of `CudaAsyncMemoryResource`; sizes are bytes or strings such as `'1 GiB'` (see `parseBytes`). */
export interface CudaAsyncMemoryResourceOptions {
  /** Bytes to allocate and release at once, so the pool starts with them. Default: none. */
  initialPoolSize?: number | string;
  /** Unused pool memory above this is returned at synchronisation points. Default: no limit. */
  releaseThreshold?: number | string;
  /** Allow exporting allocations as POSIX file descriptors for CUDA IPC. Default false. */
  enableIpc?: boolean;
}

/** Stream-ordered allocation from a CUDA memory pool of its own (cuMemAllocFromPoolAsync). */
export class CudaAsyncMemoryResource extends DeviceMemoryResource {
  constructor(options?: CudaAsyncMemoryResourceOptions) {
    const {
      initialPoolSize,
      releaseThreshold,
      enableIpc = false,
    } = validateOptions<CudaAsyncMemoryResourceOptions>(options);
    super(
      native.createCudaAsyncMemoryResource(
        initialPoolSize === undefined ? undefined : validateSizeOption(initialPoolSize, 'options.initialPoolSize'),
        releaseThreshold === undefined ? undefined : validateSizeOption(releaseThreshold, 'options.releaseThreshold'),
        validateBoolean(enableIpc, 'options.enableIpc'),
      ),
    );
  }

  /** The CUmemoryPool handle. */
  poolHandle(): bigint {
    return native.asyncPoolHandle(resourceHandle(this, 'this'), false);
  }
}

registerResourceClass('CudaAsyncMemoryResource', CudaAsyncMemoryResource);
