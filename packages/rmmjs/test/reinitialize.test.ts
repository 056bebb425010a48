// reinitialize(): RMM's semantics (rmm.reinitialize): hooks first, last registered first; then a
// resource per listed device built from the options; nothing changes when the options are wrong.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CudaMemoryResource,
  ManagedMemoryResource,
  SystemMemoryResource,
  cuda,
  getCurrentDeviceResource,
  getPerDeviceResource,
  registerReinitializeHook,
  reinitialize,
  setPerDeviceResource,
  unregisterReinitializeHook,
  DeviceBuffer,
  type DeviceMemoryResource,
} from 'rmmjs';
import { LoggingResourceAdaptor, getLogFilenames } from '@rmmjs/logging';
import { PoolMemoryResource } from '@rmmjs/pool';
import { MiB, fakeCuda, onFake, onHost, thrown, withCuda } from '@rmmjs/test-helpers';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const baseClass = () => (withCuda() ? CudaMemoryResource : SystemMemoryResource);
const devices = () => (withCuda() ? Math.min(cuda.getDeviceCount(), 2) : 1);

let saved: DeviceMemoryResource[] = [];
let dir: string;
beforeEach(() => {
  saved = Array.from({ length: devices() }, (_, device) => getPerDeviceResource(device));
  dir = mkdtempSync(join(tmpdir(), 'rmmjs-reinitialize-'));
});
afterEach(() => {
  saved.forEach((mr, device) => setPerDeviceResource(device, mr));
  rmSync(dir, { recursive: true, force: true });
});

// What reinitialize changes: each device's resource (the beforeEach gave every device one, so on
// the fake driver device 1 is one that a call listing only device 0 resets), the current device
// and the log files.
const state = () => ({
  resources: Array.from({ length: devices() }, (_, device) => getPerDeviceResource(device)),
  device: withCuda() ? cuda.getDevice() : 0,
  logFiles: getLogFilenames(),
});

/** A hook that records its calls, registered until `done`; `unchanged()` checks the state is the one at the start. */
function watch() {
  const hook = vi.fn();
  registerReinitializeHook(hook);
  const before = state();
  return {
    hook,
    done: () => unregisterReinitializeHook(hook),
    unchanged: () => {
      const after = state();
      after.resources.forEach((mr, device) => expect(mr, `device ${device}'s resource`).toBe(before.resources[device]));
      expect([after.device, after.logFiles]).toEqual([before.device, before.logFiles]);
    },
  };
}

describe('reinitialize', () => {
  it('with no options gives device 0 a fresh base resource', () => {
    const before = getCurrentDeviceResource();
    reinitialize();
    const now = getCurrentDeviceResource();
    expect(now).toBeInstanceOf(baseClass());
    expect(now.isEqual(before) && now === before).toBe(false);
  });

  it('poolAllocator wraps the base in a pool of the given sizes (numbers or byte strings)', () => {
    reinitialize({ poolAllocator: true, initialPoolSize: '2 MiB', maximumPoolSize: 8 * MiB });
    const pool = getCurrentDeviceResource() as PoolMemoryResource;
    expect(pool).toBeInstanceOf(PoolMemoryResource);
    expect(pool.poolSize()).toBe(2 * MiB);
    expect(pool.upstreamMr).toBeInstanceOf(baseClass());
    const buffer = new DeviceBuffer({ size: 3 * MiB });
    expect(pool.poolSize()).toBeGreaterThan(2 * MiB);
    buffer.free();
  });

  it('ignores the pool sizes without poolAllocator, as RMM does', () => {
    reinitialize({ initialPoolSize: '2 MiB' });
    expect(getCurrentDeviceResource()).toBeInstanceOf(baseClass());
  });

  it.runIf(withCuda())('managedMemory makes the base a ManagedMemoryResource', () => {
    reinitialize({ managedMemory: true, poolAllocator: true, initialPoolSize: '1 MiB' });
    expect((getCurrentDeviceResource() as PoolMemoryResource).upstreamMr).toBeInstanceOf(ManagedMemoryResource);
  });

  it('runs the hooks first, last registered first, with their arguments', () => {
    const calls: unknown[][] = [];
    const first = (...args: unknown[]) => calls.push(['first', ...args, getCurrentDeviceResource()]);
    const second = (...args: unknown[]) => calls.push(['second', ...args, getCurrentDeviceResource()]);
    registerReinitializeHook(first, 1, 'a');
    registerReinitializeHook(second, 2);
    const before = getCurrentDeviceResource();
    try {
      reinitialize();
    } finally {
      unregisterReinitializeHook(first);
      unregisterReinitializeHook(second);
    }
    expect(calls.map((call) => call.slice(0, -1))).toEqual([
      ['second', 2],
      ['first', 1, 'a'],
    ]);
    for (const call of calls) expect(call.at(-1)).toBe(before); // the hooks ran before anything changed
  });

  it("an initial pool size above the maximum is RMM's error, before any hook runs or resource changes", () => {
    let ran = false;
    const hook = () => (ran = true);
    registerReinitializeHook(hook);
    const before = getCurrentDeviceResource();
    try {
      const error = thrown(() =>
        reinitialize({ poolAllocator: true, initialPoolSize: '2 MiB', maximumPoolSize: '1 MiB' }),
      );
      expect(error.name).toBe('RMMError');
      expect(error.code).toBe('ERR_RMM_LOGIC');
      expect(error.message).toBe('Initial pool size exceeds the maximum pool size!');
    } finally {
      unregisterReinitializeHook(hook);
    }
    expect(ran).toBe(false);
    expect(getCurrentDeviceResource()).toBe(before);
  });

  it('logging writes a CSV per device, named with .devN before the extension, made absolute', () => {
    reinitialize({ logging: true, logFileName: join(dir, 'rmm_log.csv') });
    const logged = getCurrentDeviceResource() as LoggingResourceAdaptor;
    expect(logged).toBeInstanceOf(LoggingResourceAdaptor);
    expect(logged.getFileName()).toBe(join(dir, 'rmm_log.dev0.csv'));
    expect(getLogFilenames()[0]).toBe(join(dir, 'rmm_log.dev0.csv'));
    new DeviceBuffer({ size: 1000 }).free();
    logged.flush();
    const rows = readFileSync(join(dir, 'rmm_log.dev0.csv'), 'utf8').trim().split('\n');
    expect(rows[0]).toBe('Thread,Time,Action,Pointer,Size,Stream');
    expect(rows.slice(1).map((row) => row.split(',')[2])).toEqual(['allocate', 'free']);
    expect(rows.slice(1).map((row) => row.split(',')[4])).toEqual(['1000', '1000']);
  });

  it("logging with a pool logs the pool's allocations", () => {
    reinitialize({ logging: true, poolAllocator: true, initialPoolSize: '1 MiB', logFileName: join(dir, 'log') });
    const logged = getCurrentDeviceResource() as LoggingResourceAdaptor;
    expect(logged.getFileName()).toBe(join(dir, 'log.dev0'));
    expect(logged.upstreamMr).toBeInstanceOf(PoolMemoryResource);
  });

  it('logging without a file name or RMM_LOG_FILE is ERR_INVALID_ARG_VALUE and changes nothing', () => {
    const saved = process.env.RMM_LOG_FILE;
    delete process.env.RMM_LOG_FILE;
    const before = getCurrentDeviceResource();
    try {
      const error = thrown(() => reinitialize({ logging: true }));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.code).toBe('ERR_INVALID_ARG_VALUE');
      expect(error.message).toContain('RMM_LOG_FILE');
    } finally {
      if (saved !== undefined) process.env.RMM_LOG_FILE = saved;
    }
    expect(getCurrentDeviceResource()).toBe(before);
  });

  it('logging takes the name from RMM_LOG_FILE', () => {
    const saved = process.env.RMM_LOG_FILE;
    process.env.RMM_LOG_FILE = join(dir, 'env.csv');
    try {
      reinitialize({ logging: true });
    } finally {
      if (saved === undefined) delete process.env.RMM_LOG_FILE;
      else process.env.RMM_LOG_FILE = saved;
    }
    expect((getCurrentDeviceResource() as LoggingResourceAdaptor).getFileName()).toBe(join(dir, 'env.dev0.csv'));
  });

  it.runIf(onFake())('sets up every listed device and leaves the current device as it was', () => {
    cuda.setDevice(1);
    try {
      reinitialize({
        devices: [0, 1],
        poolAllocator: true,
        initialPoolSize: '1 MiB',
        logging: true,
        logFileName: join(dir, 'x.csv'),
      });
      expect(cuda.getDevice()).toBe(1);
    } finally {
      cuda.setDevice(0);
    }
    const names = getLogFilenames();
    expect(names[0]).toBe(join(dir, 'x.dev0.csv'));
    expect(names[1]).toBe(join(dir, 'x.dev1.csv'));
    for (const device of [0, 1]) {
      const pool = (getPerDeviceResource(device) as LoggingResourceAdaptor).upstreamMr as PoolMemoryResource;
      expect(pool).toBeInstanceOf(PoolMemoryResource);
      expect(pool.device).toBe(device);
    }
  });

  it.runIf(onFake())('a device set up before and not listed gets a plain CudaMemoryResource back', () => {
    reinitialize({ devices: [0, 1], poolAllocator: true, initialPoolSize: '1 MiB' });
    reinitialize({ devices: 1 });
    expect(getPerDeviceResource(0)).toBeInstanceOf(CudaMemoryResource);
    expect(getPerDeviceResource(1)).toBeInstanceOf(CudaMemoryResource);
  });

  it('a device that does not exist is RangeError ERR_OUT_OF_RANGE, and nothing changes', () => {
    const before = getCurrentDeviceResource();
    const error = thrown(() => reinitialize({ devices: [0, 99] }));
    expect(error).toBeInstanceOf(RangeError);
    expect(error.code).toBe('ERR_OUT_OF_RANGE');
    expect(error.message).toContain('options.devices');
    if (onHost()) expect(error.message).toContain('host mode has device 0 only');
    expect(getCurrentDeviceResource()).toBe(before);
  });

  // Every option refused: the same class, code and argument name, and nothing changed: no hook ran,
  // every device keeps its resource (on the fake driver device 1, set up before and not listed, is
  // not given a plain resource back), the current device and the log files are as they were.
  const multiple = (what: string) => `Error, ${what} pool size required to be a multiple of 256 bytes`;
  it.each([
    [null, 'TypeError', 'ERR_INVALID_ARG_TYPE', 'options'],
    ['pool', 'TypeError', 'ERR_INVALID_ARG_TYPE', 'options'],
    [{ poolAllocator: 1 }, 'TypeError', 'ERR_INVALID_ARG_TYPE', 'options.poolAllocator'],
    [{ managedMemory: 'yes' }, 'TypeError', 'ERR_INVALID_ARG_TYPE', 'options.managedMemory'],
    [{ logging: null }, 'TypeError', 'ERR_INVALID_ARG_TYPE', 'options.logging'],
    [{ devices: '0' }, 'TypeError', 'ERR_INVALID_ARG_TYPE', 'options.devices'],
    [{ devices: [0, -1] }, 'RangeError', 'ERR_OUT_OF_RANGE', 'options.devices[1]'],
    [{ devices: 0.5 }, 'RangeError', 'ERR_OUT_OF_RANGE', 'options.devices'],
    [{ devices: [0, 99] }, 'RangeError', 'ERR_OUT_OF_RANGE', 'options.devices'],
    [
      { poolAllocator: true, initialPoolSize: '1 parsec' },
      'TypeError',
      'ERR_INVALID_ARG_VALUE',
      'options.initialPoolSize',
    ],
    [{ poolAllocator: true, initialPoolSize: 2n }, 'TypeError', 'ERR_INVALID_ARG_TYPE', 'options.initialPoolSize'],
    [{ poolAllocator: true, maximumPoolSize: -1 }, 'RangeError', 'ERR_OUT_OF_RANGE', 'options.maximumPoolSize'],
    [{ poolAllocator: true, initialPoolSize: 257 }, 'RMMError', 'ERR_RMM_LOGIC', multiple('Initial')],
    [{ poolAllocator: true, initialPoolSize: '1000 B' }, 'RMMError', 'ERR_RMM_LOGIC', multiple('Initial')],
    [{ poolAllocator: true, maximumPoolSize: 257 }, 'RMMError', 'ERR_RMM_LOGIC', multiple('Maximum')],
    [
      { poolAllocator: true, initialPoolSize: 512, maximumPoolSize: 256 },
      'RMMError',
      'ERR_RMM_LOGIC',
      'Initial pool size exceeds the maximum pool size!',
    ],
    [{ logging: true, logFileName: 42 }, 'TypeError', 'ERR_INVALID_ARG_TYPE', 'options.logFileName'],
  ])('bad options %o -> %s %s naming %s, and nothing changes', (options, name, code, argument) => {
    const watched = watch();
    try {
      const error = thrown(() => reinitialize(options as never));
      expect([error.name, error.code]).toEqual([name, code]);
      expect(error.message).toContain(argument);
    } finally {
      watched.done();
    }
    expect(watched.hook).not.toHaveBeenCalled();
    watched.unchanged();
  });

  it('logging without a file name or RMM_LOG_FILE changes nothing either', () => {
    const saved = process.env.RMM_LOG_FILE;
    delete process.env.RMM_LOG_FILE;
    const watched = watch();
    try {
      expect(thrown(() => reinitialize({ poolAllocator: true, logging: true })).code).toBe('ERR_INVALID_ARG_VALUE');
    } finally {
      watched.done();
      if (saved !== undefined) process.env.RMM_LOG_FILE = saved;
    }
    expect(watched.hook).not.toHaveBeenCalled();
    watched.unchanged();
  });

  // A failure that no check can foresee (the memory runs out while the resources are built) comes
  // after the hooks, which free memory for the new resources; no device has been given one yet.
  it.runIf(onFake())('a resource that fails to build: the hooks ran, and no device changed', () => {
    const watched = watch();
    const live = fakeCuda.stats().liveAllocations;
    fakeCuda.failNext('cuMemAlloc_v2', 2, 'CUDA_ERROR_OUT_OF_MEMORY'); // device 1's pool, after device 0's
    try {
      const error = thrown(() => reinitialize({ devices: [0, 1], poolAllocator: true, initialPoolSize: '1 MiB' }));
      expect([error.name, error.code]).toEqual(['OutOfMemoryError', 'ERR_RMM_OUT_OF_MEMORY']);
    } finally {
      fakeCuda.clearFaults();
      watched.done();
    }
    expect(watched.hook).toHaveBeenCalledTimes(1);
    watched.unchanged();
    expect(fakeCuda.stats().liveAllocations).toBe(live); // device 0's new pool went back
  });
});
