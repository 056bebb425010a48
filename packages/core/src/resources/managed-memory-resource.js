import { DeviceMemoryResource, registerResourceClass } from '../device-memory-resource.js';
import { native } from '../native.js';
/** Unified (managed) memory from cuMemAllocManaged, accessible from host and device. */
export class ManagedMemoryResource extends DeviceMemoryResource {
    constructor() {
        super(native.createManagedMemoryResource());
    }
}
registerResourceClass('ManagedMemoryResource', ManagedMemoryResource);
//# sourceMappingURL=managed-memory-resource.js.map