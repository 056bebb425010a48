import {
  cuda,
  CudaAsyncMemoryResource,
  CudaAsyncViewMemoryResource,
  CudaError,
  CudaMemoryResource,
  ManagedMemoryResource,
  PinnedHostMemoryResource,
  SamHeadroomMemoryResource,
} from '@rmmjs/core';
import { backend, fakeCudaLibraryPath, onFake, onHost, runInProcess, thrown, withCuda } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

const child = (name: string) => new URL(`./children/${name}.js`, import.meta.url);

describe('cuda', () => {
  it('is available exactly when the backend has a driver', () => {
    expect(cuda.isAvailable()).toBe(withCuda());
    expect(cuda.hostModeReason() === null).toBe(withCuda());
  });

  it.runIf(onHost())('host mode: no devices, device 0, driver version 0', () => {
    expect(cuda.getDeviceCount()).toBe(0);
    expect(cuda.getDevice()).toBe(0);
    expect(cuda.driverVersion()).toBe(0);
    cuda.setDevice(0);
    expect(thrown(() => cuda.setDevice(1)).code).toBe('ERR_OUT_OF_RANGE');
  });

  it.runIf(onFake())('fake driver: two devices and its version', () => {
    expect(cuda.getDeviceCount()).toBe(2);
    expect(cuda.driverVersion()).toBe(13000);
    expect(cuda.deviceName(1)).toBe('rmmjs fake CUDA device 1');
  });

  it.runIf(withCuda())('setDevice switches the current device', () => {
    const count = cuda.getDeviceCount();
    expect(count).toBeGreaterThan(0);
    expect(cuda.driverVersion()).toBeGreaterThanOrEqual(12020);
    const last = count - 1;
    cuda.setDevice(last);
    expect(cuda.getDevice()).toBe(last);
    cuda.setDevice(0);
    expect(cuda.getDevice()).toBe(0);
    const error = thrown(() => cuda.setDevice(count));
    expect(error).toBeInstanceOf(RangeError);
    expect(error.code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => cuda.setDevice(-1)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => cuda.setDevice('0' as never)).code).toBe('ERR_INVALID_ARG_TYPE');
  });

  it('synchronize waits for the device (a no-op in host mode) and checks its argument', () => {
    cuda.synchronize();
    cuda.synchronize(0);
    expect(thrown(() => cuda.synchronize(Math.max(1, cuda.getDeviceCount()))).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => cuda.synchronize(-1)).code).toBe('ERR_OUT_OF_RANGE');
  });

  it.runIf(withCuda())('getDefaultMemPool returns a non-zero handle', () => {
    expect(cuda.getDefaultMemPool()).not.toBe(0n);
    expect(cuda.getDefaultMemPool(0)).toBe(cuda.getDefaultMemPool());
  });

  // Found by the fuzzer (tooling/fuzz): a negative pointer was ERR_INVALID_ARG_TYPE from the
  // native side, and a size of another type reached it unchecked.
  it('lastPrefetchLocation checks its pointer and size as every pointer and size', () => {
    const expectError = (fn: () => unknown, Class: typeof TypeError | typeof RangeError, code: string) => {
      const error = thrown(fn);
      expect(error).toBeInstanceOf(Class);
      expect(error.code).toBe(code);
    };
    expectError(() => cuda.lastPrefetchLocation(256 as never, 1), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectError(() => cuda.lastPrefetchLocation(-256n, 1), RangeError, 'ERR_OUT_OF_RANGE');
    expectError(() => cuda.lastPrefetchLocation(2n ** 64n, 1), RangeError, 'ERR_OUT_OF_RANGE');
    expectError(() => cuda.lastPrefetchLocation(256n, '1' as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectError(() => cuda.lastPrefetchLocation(256n, -1), RangeError, 'ERR_OUT_OF_RANGE');
  });
});

describe.runIf(onHost())('host mode: CUDA-only resources say what to do', () => {
  it.each([
    ['CudaMemoryResource', () => new CudaMemoryResource()],
    ['ManagedMemoryResource', () => new ManagedMemoryResource()],
    ['PinnedHostMemoryResource', () => new PinnedHostMemoryResource()],
    ['CudaAsyncMemoryResource', () => new CudaAsyncMemoryResource()],
    ['CudaAsyncViewMemoryResource', () => new CudaAsyncViewMemoryResource(1n)],
    ['SamHeadroomMemoryResource', () => new SamHeadroomMemoryResource(1024)],
  ])('%s throws ERR_CUDA_DRIVER_NOT_FOUND', (_name, make) => {
    const error = thrown(make);
    expect(error).toBeInstanceOf(CudaError);
    expect(error.code).toBe('ERR_CUDA_DRIVER_NOT_FOUND');
    expect(error.message).toMatch(/RMMJS_DISABLE_CUDA|Install the NVIDIA driver/);
    expect(thrown(() => cuda.getDefaultMemPool()).code).toBe('ERR_CUDA_DRIVER_NOT_FOUND');
  });
});

// Each of these loads the driver in a fresh process: a process loads it once.
describe('driver loading', () => {
  it('importing never loads the driver; an unloadable RMMJS_CUDA_LIBRARY is an error, not host mode', () => {
    const run = runInProcess(child('loads-the-driver'), {
      env: { RMMJS_CUDA_LIBRARY: '/no/such/libcuda.so', RMMJS_DISABLE_CUDA: undefined },
    });
    expect(run.stderr).toBe('');
    const [imported, available, allocated] = run.stdout.split('\n');
    expect(imported).toBe('imported');
    const [name, code, message] = JSON.parse(available);
    expect([name, code, message.includes('/no/such/libcuda.so')]).toEqual([
      'CudaError',
      'ERR_CUDA_DRIVER_NOT_FOUND',
      true,
    ]);
    expect(JSON.parse(allocated)[1]).toBe('ERR_CUDA_DRIVER_NOT_FOUND');
  });

  it('a library without a driver in it is an error too', () => {
    const run = runInProcess(child('loads-the-driver'), {
      env: { RMMJS_CUDA_LIBRARY: 'libc.so.6', RMMJS_DISABLE_CUDA: undefined },
    });
    const [, code, message] = JSON.parse(run.stdout.split('\n')[1]);
    expect([code, /missing cu/.test(message)]).toEqual(['ERR_CUDA_DRIVER_NOT_FOUND', true]);
  });

  it.runIf(backend() !== 'gpu')('the fake driver with no devices is host mode with ERR_CUDA_NO_DEVICE', () => {
    const run = runInProcess(child('finds-no-device'), {
      env: { RMMJS_CUDA_LIBRARY: fakeCudaLibraryPath, RMMJS_FAKE_CUDA_DEVICES: '0', RMMJS_DISABLE_CUDA: undefined },
    });
    expect(run.stderr).toBe('');
    expect(run.stdout.split('\n')).toEqual(['false 0', 'ERR_CUDA_NO_DEVICE true', '7,8 SystemMemoryResource']);
  });
});
