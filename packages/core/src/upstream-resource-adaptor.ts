import { DeviceMemoryResource, resourceHandle, wrapResource } from './device-memory-resource.js';
import { native } from './native.js';

/** The abstract base of resources that wrap another (their upstream), which they keep alive. */
export class UpstreamResourceAdaptor extends DeviceMemoryResource {
  /** The upstream resource. */
  get upstreamMr(): DeviceMemoryResource {
    const upstream = native.resourceUpstream(resourceHandle(this, 'this'));
    if (upstream === null) throw new TypeError(`${this.constructor.name} has no upstream resource`);
    return wrapResource(upstream);
  }

  getUpstream(): DeviceMemoryResource {
    return this.upstreamMr;
  }
}
