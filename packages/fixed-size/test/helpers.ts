// What the suites share: the upstreams they run over, RMM's array_tester, a counting upstream.
import { fileURLToPath } from 'node:url';
import {
  CudaAsyncMemoryResource,
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

/** @rmmjs/limiting, loaded by path (not a dependency): its byte counter shows what an upstream handed out. */
export interface Limiting extends UpstreamResourceAdaptor {
  getAllocatedBytes(): number;
  getAllocationLimit(): number;
}
const limitingModule = (await import(new URL('../../limiting/dist/index.js', import.meta.url).href)) as {
  LimitingResourceAdaptor: new (upstream: DeviceMemoryResource, limit: number | string) => Limiting;
};
/** A counting upstream over `upstream` (default: the current resource). */
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
  { name: 'CudaAsyncMemoryResource', make: () => new CudaAsyncMemoryResource(), available: withCuda },
  { name: 'LimitingResourceAdaptor', make: () => counting(), available: () => true },
];
export const availableUpstreams = () => upstreamCases.filter((c) => c.available());

/** RMM's array_tester: to_device, device_array_like, a device copy, copy_to_host. */
export function arrayTester(nbytes: number, seed: number, mr?: DeviceMemoryResource): void {
  const data = pattern(nbytes, seed);
  const input = mr === undefined ? DeviceBuffer.toDevice(data) : new DeviceBuffer({ data, mr });
  const result = new DeviceBuffer({ size: input.size, mr });
  result.copyFromDevice(input);
  expectBytes(result.toBytes(), data);
  input.free();
  result.free();
}

/** RMM's _dtypes (item sizes) x _nelems. */
export const itemSizes = [1, 2, 4, 8, 4, 8, 1];
export const nelems = [1, 2, 7, 8, 9, 32, 128];

/** Runs `source` (the body of an async function with `core` and `fixedSize` in scope) in a worker thread. */
export function runWorker(source: string, modules: Record<string, string> = {}): Promise<unknown> {
  return runInWorker(source, { modules: { fixedSize: fileURLToPath(new URL('../dist/index.js', import.meta.url)), ...modules } });
}
