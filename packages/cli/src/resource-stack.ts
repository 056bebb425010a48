import { UpstreamResourceAdaptor, type DeviceMemoryResource } from '@rmmjs/core';

/** The class names of a resource and its upstreams, top first: `['StatisticsResourceAdaptor', 'PoolMemoryResource', 'CudaMemoryResource']`. */
export function resourceStack(mr: DeviceMemoryResource): string[] {
  const names: string[] = [];
  for (let at: DeviceMemoryResource | undefined = mr; at !== undefined;) {
    names.push(at.constructor.name);
    at = at instanceof UpstreamResourceAdaptor ? at.upstreamMr : undefined;
  }
  return names;
}
