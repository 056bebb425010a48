import { DeviceMemoryResource, registerResourceClass } from '../device-memory-resource.js';
import { native } from '../native.js';

/**
 * Host memory from the C heap. On a GPU it needs pageable memory access (HMM or ATS) and
 * throws `ERR_RMM_LOGIC` without it; in host mode it is the default resource.
 */
export class SystemMemoryResource extends DeviceMemoryResource {
  constructor() {
    super(native.createSystemMemoryResource());
  }
}

registerResourceClass('SystemMemoryResource', SystemMemoryResource);
