import { DeviceMemoryResource, registerResourceClass } from '../device-memory-resource.js';
import { native } from '../native.js';
import { validateSizeOption } from '../validate.js';
/**
 * System-allocated memory (SAM) that keeps `headroom` bytes of GPU memory free: allocations go
 * to the GPU while free memory stays above the headroom, else they stay in host memory.
 * Needs pageable memory access (HMM or ATS).
 */
export class SamHeadroomMemoryResource extends DeviceMemoryResource {
    constructor(headroom) {
        super(native.createSamHeadroomMemoryResource(validateSizeOption(headroom, 'headroom')));
    }
}
registerResourceClass('SamHeadroomMemoryResource', SamHeadroomMemoryResource);
//# sourceMappingURL=sam-headroom-memory-resource.js.map