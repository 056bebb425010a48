import { invalidArgType } from './errors.js';
import { DeviceMemoryResource, resourceHandle, wrapResource } from './device-memory-resource.js';
import { native } from './native.js';

/** The abstract base of resources that wrap another (their upstream), which they keep alive. */
export class UpstreamResourceAdaptor extends DeviceMemoryResource {
  /** The upstream resource. */
  get upstreamMr(): DeviceMemoryResource {
    const upstream = native.resourceUpstream(resourceHandle(this, 'this'));
    if (upstream === null) {
      const error = invalidArgType('this', 'a resource with an upstream', this);
      error.message = `${this.constructor.name} has no upstream resource. ${error.message}`;
      throw error;
    }
    return wrapResource(upstream);
  }

  /** The upstream resource, as `upstreamMr` (RMM's `get_upstream()`). */
  getUpstream(): DeviceMemoryResource {
    return this.upstreamMr;
  }
}
