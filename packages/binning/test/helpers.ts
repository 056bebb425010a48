// What the suites share: the upstreams they run over, RMM's array_tester, a counting resource.
import { fileURLToPath } from 'node:url';
import {
  CudaMemoryResource,
  DeviceBuffer,
  type DeviceMemoryResource,
  ManagedMemoryResource,
  UpstreamResourceAdaptor,
  getCurrentDeviceResource,
} from '@rmmjs/core';
import { expectBytes, pattern, runInWorker, withCuda } from '@rmmjs/test-helpers';

export const KiB = 1024;
export const MiB = 1 << 20;

/** @rmmjs/limiting, loaded by path (not a dependency): its byte counter shows what a resource handed out. */
export interface Limiting extends UpstreamResourceAdaptor {
  getAllocatedBytes(): number;
  getAllocationLimit(): number;
}
const limitingModule = (await import(new URL('../../limiting/dist/index.js', import.meta.url).href)) as {
  LimitingResourceAdaptor: new (upstream: DeviceMemoryResource, limit: number | string) => Limiting;
};
/** A counting resource over `upstream` (default: the current resource). */
export function counting(upstream: DeviceMemoryResource = getCurrentDeviceResource(), limit = 200 * MiB): Limiting {
  return new limitingModule.LimitingResourceAdaptor(upstream, limit);
}

export interface UpstreamCase {
  name: string;
  make: () => DeviceMemoryResource;
  available: () => boolean;
}

export const upstreamCases: UpstreamCase[] = [
  { name: 'the default resource', make: () => getCurrentDeviceResource(), available: () => true },
  { name: 'CudaMemoryResource', make: () => new CudaMemoryResource(), available: withCuda },
  { name: 'ManagedMemoryResource', make: () => new ManagedMemoryResource(), available: withCuda },
  { name: 'LimitingResourceAdaptor', make: () => counting(), available: () => true },
];
export const availableUpstreams = () => upstreamCases.filter((c) => c.available());

/** RMM's array_tester: to_device, device_array_like, a device copy, copy_to_host. */
export function arrayTester(nbytes: number, seed: number): void {
  // Big arrays get a cheap pattern: a fill with a few distinct bytes.
  const data = nbytes <= MiB ? pattern(nbytes, seed) : new Uint8Array(nbytes).fill(seed & 0xff);
  if (nbytes > MiB) for (let i = 0; i < nbytes; i += 65_537) data[i] = (i >>> 16) & 0xff;
  const input = DeviceBuffer.toDevice(data);
  const result = new DeviceBuffer({ size: input.size });
  result.copyFromDevice(input);
  expectBytes(result.toBytes(), data);
  input.free();
  result.free();
}

/** RMM's _dtypes (item sizes). */
export const itemSizes = [1, 2, 4, 8, 4, 8, 1];

/** Runs `source` (the body of an async function with `core`, `binning` and `fixedSize` in scope) in a worker thread. */
export function runWorker(source: string): Promise<unknown> {
  return runInWorker(source, {
    modules: {
      binning: fileURLToPath(new URL('../dist/index.js', import.meta.url)),
      fixedSize: '@rmmjs/fixed-size',
    },
  });
}
