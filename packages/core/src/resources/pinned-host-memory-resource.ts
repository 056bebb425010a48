import { DeviceMemoryResource, registerResourceClass } from '../device-memory-resource.js';
import { native } from '../native.js';

/** Page-locked host memory (cuMemHostAlloc), device-accessible, 256-byte aligned. */
export class PinnedHostMemoryResource extends DeviceMemoryResource {
  constructor() {
    super(native.createPinnedHostMemoryResource());
  }
}

registerResourceClass('PinnedHostMemoryResource', PinnedHostMemoryResource);
