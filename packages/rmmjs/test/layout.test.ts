// `import * as rmm from 'rmmjs'` has every name of RMM's Python API at its Python path.
import { readFileSync } from 'node:fs';
import { importPackage, workspaceRegistrations } from '@rmmjs/registry';
import * as rmm from 'rmmjs';
import { describe, expect, it } from 'vitest';

const top = [
  'DeviceBuffer',
  'RMMError',
  'OutOfMemoryError',
  'CudaError',
  'Stream',
  'DEFAULT_STREAM',
  'LEGACY_DEFAULT_STREAM',
  'PER_THREAD_DEFAULT_STREAM',
  'CudaStreamPool',
  'parseBytes',
  'cuda',
  'isInitialized',
  'registerReinitializeHook',
  'unregisterReinitializeHook',
  'reinitialize',
  'LevelEnum',
  'LoggingLevel',
  'setLoggingLevel',
  'getLoggingLevel',
  'setFlushLevel',
  'getFlushLevel',
  'flushLogger',
  'shouldLog',
  'enableLogging',
  'disableLogging',
  'getLogFilenames',
];

// rmm.mr's names that are not resources; the resources come from the packages' registrations.
const mrBesidesResources = [
  'DeviceMemoryResource',
  'UpstreamResourceAdaptor',
  'availableDeviceMemory',
  'getCurrentDeviceResource',
  'getCurrentDeviceResourceType',
  'setCurrentDeviceResource',
  'getPerDeviceResource',
  'getPerDeviceResourceType',
  'setPerDeviceResource',
  'isInitialized',
  'enableLogging',
  'disableLogging',
  'getLogFilenames',
];
const registrations = workspaceRegistrations();

const statistics = [
  'Statistics',
  'StatisticsResourceAdaptor',
  'enableStatistics',
  'getStatistics',
  'pushStatistics',
  'popStatistics',
  'statistics',
  'ProfilerRecords',
  'MemoryRecord',
  'defaultProfilerRecords',
  'profiler',
  'profileScope',
  'profile',
];

const allocators = ['rmmAllocator', 'rmmMemoryAllocator', 'RmmMemory', 'allocatorHooks', 'RMMExternalMemoryManager'];
const interop = ['exportIpcHandle', 'openIpcHandle', 'toDLPack', 'fromDLPack'];

const missing = (namespace: object, names: string[]) =>
  names.filter((name) => (namespace as Record<string, unknown>)[name] === undefined);

describe('rmmjs', () => {
  it('has rmm.X, rmm.mr.X, rmm.statistics.X, rmm.allocators.X and rmm.interop.X for every name of the layout', () => {
    expect(missing(rmm, top)).toEqual([]);
    expect(missing(rmm.statistics, statistics)).toEqual([]);
    expect(missing(rmm.allocators, allocators)).toEqual([]);
    expect(missing(rmm.interop, interop)).toEqual([]);
  });

  it('has at rmm.mr exactly the registered resources (with the values they come with) and the registry', () => {
    const registered = registrations.filter((r) => r.umbrella === 'mr').flatMap((r) => [r.class, ...r.exports]);
    expect(Object.keys(rmm.mr).sort()).toEqual([...mrBesidesResources, ...registered].sort());
  });

  it('depends on every package that registers resources', () => {
    const { dependencies } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const registering = [...new Set(registrations.map((r) => r.package))];
    expect(registering.filter((name) => !(name in dependencies))).toEqual([]);
  });

  it.each(registrations.map((r) => [r.class, r]))('has rmm.mr.%s, the class of its own package', async (_, r) => {
    const own = await importPackage(r);
    const namespace = r.umbrella.split('.').reduce((at: any, key) => at[key], rmm) as Record<string, unknown>;
    expect(namespace[r.class]).toBe(own[r.class]);
    for (const name of r.exports) expect(namespace[name]).toBe(own[name]);
  });

  it.each(registrations.map((r) => [r.class, r]))('%s is what its registration says', async (_, r) => {
    const { prototype } = (await importPackage(r))[r.class];
    expect(prototype instanceof rmm.DeviceMemoryResource).toBe(true);
    expect([r.kind, prototype instanceof rmm.UpstreamResourceAdaptor]).toEqual([r.kind, r.kind !== 'base']);
    const members = r.members.filter((m) => m.startsWith('.')).map((m) => m.slice(1).replace(/\(.*$/, ''));
    const missingMembers = [...members, ...Object.keys(r.counters)].filter((name) => !(name in prototype));
    expect(missingMembers).toEqual([]);
  });

  it('re-exports the packages themselves, not copies', async () => {
    const { PoolMemoryResource } = await import('@rmmjs/pool');
    const { DeviceBuffer } = await import('@rmmjs/core');
    const { getStatistics } = await import('@rmmjs/statistics');
    expect(rmm.mr.PoolMemoryResource).toBe(PoolMemoryResource);
    expect(rmm.DeviceBuffer).toBe(DeviceBuffer);
    expect(rmm.statistics.getStatistics).toBe(getStatistics);
    expect(rmm.mr.getCurrentDeviceResource).toBe(rmm.getCurrentDeviceResource);
  });

  it('works as RMM is used from Python: a pool under statistics, buffers, counters', () => {
    const base = rmm.mr.getCurrentDeviceResource();
    const pool = new rmm.mr.PoolMemoryResource(base, { initialPoolSize: '1 MiB' });
    const counted = new rmm.mr.StatisticsResourceAdaptor(pool);
    const previous = rmm.mr.setCurrentDeviceResource(counted);
    try {
      const buffer = new rmm.DeviceBuffer({ data: new Uint8Array([1, 2, 3]) });
      expect(buffer.toBytes()).toEqual(new Uint8Array([1, 2, 3]));
      expect(counted.allocationCounts.currentBytes).toBe(3);
      buffer.free();
      expect(counted.allocationCounts.totalCount).toBe(1);
    } finally {
      rmm.mr.setCurrentDeviceResource(previous);
      counted[Symbol.dispose]();
      pool[Symbol.dispose]();
    }
  });
});
