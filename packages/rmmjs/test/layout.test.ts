// `import * as rmm from 'rmmjs'` has every name of RMM's Python API at its Python path.
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

const mr = [
  'DeviceMemoryResource',
  'UpstreamResourceAdaptor',
  'CudaMemoryResource',
  'ManagedMemoryResource',
  'SystemMemoryResource',
  'SamHeadroomMemoryResource',
  'PinnedHostMemoryResource',
  'CudaAsyncMemoryResource',
  'CudaAsyncViewMemoryResource',
  'PoolMemoryResource',
  'ArenaMemoryResource',
  'FixedSizeMemoryResource',
  'BinningMemoryResource',
  'LimitingResourceAdaptor',
  'PrefetchResourceAdaptor',
  'FailureCallbackResourceAdaptor',
  'CallbackMemoryResource',
  'TrackingResourceAdaptor',
  'LoggingResourceAdaptor',
  'StatisticsResourceAdaptor',
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
    expect(missing(rmm.mr, mr)).toEqual([]);
    expect(missing(rmm.statistics, statistics)).toEqual([]);
    expect(missing(rmm.allocators, allocators)).toEqual([]);
    expect(missing(rmm.interop, interop)).toEqual([]);
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
