// Failure paths through the fake driver's fault injection (tooling/fake-cuda), and the fake's own
// C self-test.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CudaAsyncMemoryResource,
  CudaError,
  CudaMemoryResource,
  CudaStreamPool,
  DeviceBuffer,
  ManagedMemoryResource,
  OutOfMemoryError,
  PinnedHostMemoryResource,
  SamHeadroomMemoryResource,
  Stream,
  SystemMemoryResource,
  cuda,
} from '@rmmjs/core';
import {
  PAGEABLE_MEMORY_ACCESS,
  expectBytes,
  fakeCuda,
  fakeCudaLibraryPath,
  onFake,
  pattern,
  rejected,
  runInProcess,
  thrown,
} from '@rmmjs/test-helpers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const CUDA_ERROR_INVALID_VALUE = 1;
const CUDA_ERROR_OUT_OF_MEMORY = 2;
const CUDA_ERROR_LAUNCH_FAILED = 719;
const MEMPOOL_SUPPORTED_HANDLE_TYPES = 119;

describe.runIf(onFake())('on the fake driver', () => {
  let liveBefore: number;
  beforeEach(() => {
    fakeCuda.reset();
    liveBefore = fakeCuda.stats().liveAllocations;
  });
  afterEach(() => {
    fakeCuda.clearFaults();
    expect(fakeCuda.stats().liveAllocations).toBe(liveBefore); // nothing leaked
  });

  it('cuMemAlloc out of memory is OutOfMemoryError with RMM wording; the next allocation works', () => {
    const mr = new CudaMemoryResource();
    fakeCuda.failNext('cuMemAlloc_v2', 1, CUDA_ERROR_OUT_OF_MEMORY);
    const error = thrown(() => mr.allocate(1000));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.message).toContain('failed to allocate 1000 bytes');
    expect(error.message).toContain('CUDA_ERROR_OUT_OF_MEMORY');
    const ptr = mr.allocate(1000);
    mr.deallocate(ptr, 1000);
  });

  it('any other allocation failure is CudaError with the CUDA name and number', () => {
    const mr = new ManagedMemoryResource();
    fakeCuda.failNext('cuMemAllocManaged', 1, CUDA_ERROR_LAUNCH_FAILED);
    const error = thrown(() => mr.allocate(64));
    expect(error).toBeInstanceOf(CudaError);
    expect(error.code).toBe('ERR_CUDA');
    expect(error.cudaErrorCode).toBe(CUDA_ERROR_LAUNCH_FAILED);
    expect(error.cudaErrorName).toBe('CUDA_ERROR_LAUNCH_FAILED');
    expect(error.message).toContain('cuMemAllocManaged');
  });

  it('the device memory limit is real: over it is OutOfMemoryError', () => {
    const mr = new CudaMemoryResource();
    expect(thrown(() => mr.allocate(256 * 2 ** 20 + 256)).code).toBe('ERR_RMM_OUT_OF_MEMORY');
  });

  it('a failed copy in the constructor frees what it allocated', () => {
    fakeCuda.failNext('cuMemcpyAsync', 1, CUDA_ERROR_INVALID_VALUE);
    const error = thrown(() => new DeviceBuffer({ data: pattern(100, 1) }));
    expect(error.code).toBe('ERR_CUDA');
    expect(error.message).toContain('cuMemcpyAsync');
  });

  it('a failed copy leaves the buffer and others intact', () => {
    const a = DeviceBuffer.toDevice(pattern(500, 2));
    const b = DeviceBuffer.toDevice(pattern(500, 3));
    fakeCuda.failNext('cuMemcpyAsync', 1, CUDA_ERROR_INVALID_VALUE);
    expect(thrown(() => a.copyFromHost(pattern(500, 4))).cudaErrorName).toBe('CUDA_ERROR_INVALID_VALUE');
    expectBytes(a.toBytes(), pattern(500, 2));
    expectBytes(b.toBytes(), pattern(500, 3));
    a.free();
    b.free();
  });

  it('a failed reallocation in resize keeps the old memory and size', () => {
    const buffer = DeviceBuffer.toDevice(pattern(300, 5));
    const ptr = buffer.ptr;
    fakeCuda.failNext('cuMemAlloc_v2', 1, CUDA_ERROR_OUT_OF_MEMORY);
    expect(thrown(() => buffer.resize(10000)).code).toBe('ERR_RMM_OUT_OF_MEMORY');
    expect(buffer.ptr).toBe(ptr);
    expect(buffer.size).toBe(300);
    expectBytes(buffer.toBytes(), pattern(300, 5));
    fakeCuda.failNext('cuMemcpyAsync', 1, CUDA_ERROR_INVALID_VALUE);
    expect(thrown(() => buffer.reserve(10000)).code).toBe('ERR_CUDA');
    expect(buffer.capacity()).toBe(300);
    expectBytes(buffer.toBytes(), pattern(300, 5));
    buffer.free();
  });

  // It used to log the failure and move on, leaving the old memory allocated for good.
  it('a resize whose old memory the resource cannot take back is undone; trying again works', () => {
    const stream = new Stream();
    const buffer = new DeviceBuffer({ data: pattern(300, 6), stream });
    const ptr = buffer.ptr;
    for (const grow of ['resize', 'reserve'] as const) {
      fakeCuda.failNext('cuMemFree_v2', 1, CUDA_ERROR_LAUNCH_FAILED);
      const error = thrown(() => buffer[grow](10000));
      expect(error).toBeInstanceOf(CudaError);
      expect(error.cudaErrorCode).toBe(CUDA_ERROR_LAUNCH_FAILED);
      expect(error.message).toContain('cuMemFree_v2');
      expect([buffer.ptr, buffer.size, buffer.capacity()]).toEqual([ptr, 300, 300]);
      expect(buffer.stream).toBe(stream);
      expect(fakeCuda.stats().liveAllocations).toBe(liveBefore + 1); // the new memory went back
      expectBytes(buffer.toBytes(), pattern(300, 6));
    }
    buffer.resize(10000);
    expect(buffer.ptr).not.toBe(ptr);
    expectBytes(buffer.toBytes().subarray(0, 300), pattern(300, 6));
    expect(fakeCuda.stats().liveAllocations).toBe(liveBefore + 1);
    buffer.free();
    stream[Symbol.dispose]();
  });

  it('a free the driver refuses as invalid (a double free) is reported once and not retried', () => {
    const buffer = new DeviceBuffer({ size: 64 });
    fakeCuda.failNext('cuMemFree_v2', 1, CUDA_ERROR_INVALID_VALUE);
    expect(thrown(() => buffer.free()).code).toBe('ERR_RMM_LOGIC');
    expect(buffer.freed).toBe(true);
    // The fake still holds the allocation the driver refused to free: release it for the leak check.
    fakeCuda.reset();
    liveBefore += 1;
  });

  it('stream creation and synchronisation failures are CudaErrors; async ones reject', async () => {
    fakeCuda.failNext('cuStreamCreateWithPriority', 1, CUDA_ERROR_OUT_OF_MEMORY);
    expect(thrown(() => new Stream()).cudaErrorName).toBe('CUDA_ERROR_OUT_OF_MEMORY');
    using stream = new Stream();
    fakeCuda.failNext('cuStreamSynchronize', 1, CUDA_ERROR_LAUNCH_FAILED);
    expect(thrown(() => stream.synchronize()).cudaErrorCode).toBe(CUDA_ERROR_LAUNCH_FAILED);
    fakeCuda.failNext('cuStreamSynchronize', 1, CUDA_ERROR_LAUNCH_FAILED);
    const error = await rejected(stream.synchronizeAsync());
    expect(error).toBeInstanceOf(CudaError);
    expect(error.cudaErrorName).toBe('CUDA_ERROR_LAUNCH_FAILED');
    const buffer = new DeviceBuffer({ size: 1 << 16 });
    fakeCuda.failNext('cuStreamSynchronize', 1, CUDA_ERROR_LAUNCH_FAILED);
    expect((await rejected(buffer.copyToHostAsync())).code).toBe('ERR_CUDA');
    buffer.free();
  });

  // Destructors cannot throw: a stream or pool the driver refuses to destroy is logged (in a child
  // process, whose debug log the test reads).
  it.each([
    ['cuStreamDestroy_v2', 'Stream', 'Stream: cuStreamDestroy_v2 failed'],
    ['cuMemPoolDestroy', 'CudaAsyncMemoryResource', 'CudaAsyncMemoryResource: cuMemPoolDestroy failed'],
  ])('a failing %s is logged', (symbol, disposed, logged) => {
    const run = runInProcess(new URL('./children/disposes.js', import.meta.url), {
      args: [disposed],
      env: { RMMJS_FAKE_CUDA_FAIL: `${symbol}:1:CUDA_ERROR_LAUNCH_FAILED` },
      debugLog: true,
    });
    expect([run.status, run.stderr]).toEqual([0, '']);
    expect(run.log).toContain(`[error ] ${logged}: CUDA_ERROR_LAUNCH_FAILED unspecified launch failure`);
  });

  it('a CudaStreamPool whose third stream cannot be created destroys the first two at once', () => {
    const streamsBefore = fakeCuda.stats().liveStreams;
    fakeCuda.failNext('cuStreamCreateWithPriority', 3, CUDA_ERROR_OUT_OF_MEMORY);
    const error = thrown(() => new CudaStreamPool({ poolSize: 4 }));
    expect(error).toBeInstanceOf(CudaError);
    expect(error.cudaErrorName).toBe('CUDA_ERROR_OUT_OF_MEMORY');
    expect(fakeCuda.stats().liveStreams).toBe(streamsBefore);
  });

  it('streams are destroyed when the last user lets go', () => {
    const streamsBefore = fakeCuda.stats().liveStreams;
    const stream = new Stream();
    const buffer = new DeviceBuffer({ size: 10, stream });
    stream[Symbol.dispose]();
    expect(fakeCuda.stats().liveStreams).toBe(streamsBefore + 1);
    buffer.free();
    expect(fakeCuda.stats().liveStreams).toBe(streamsBefore);
  });

  it('CudaAsyncMemoryResource: priming only with initialPoolSize, threshold set, pool destroyed with it', () => {
    const poolsBefore = fakeCuda.stats().livePools;
    const callsBefore = fakeCuda.stats().calls.cuMemAllocFromPoolAsync ?? 0;
    const plain = new CudaAsyncMemoryResource();
    expect(fakeCuda.stats().calls.cuMemAllocFromPoolAsync ?? 0).toBe(callsBefore);
    const primed = new CudaAsyncMemoryResource({ initialPoolSize: '1MiB', releaseThreshold: 4096 });
    expect(fakeCuda.stats().calls.cuMemAllocFromPoolAsync).toBe(callsBefore + 1);
    expect(fakeCuda.stats().livePools).toBe(poolsBefore + 2);
    expect(plain.poolHandle()).not.toBe(primed.poolHandle());
    const ptr = primed.allocate(5000);
    primed.deallocate(ptr, 5000);
    plain[Symbol.dispose]();
    primed[Symbol.dispose]();
    expect(fakeCuda.stats().livePools).toBe(poolsBefore);
  });

  it('a CudaAsyncMemoryResource pair from JS makes its two driver calls and no other', () => {
    const mr = new CudaAsyncMemoryResource();
    const stream = new Stream();
    try {
      for (const on of [undefined, stream]) {
        mr.deallocate(mr.allocate(1 << 20, on), 1 << 20, on); // this thread's context is looked up once
        fakeCuda.reset();
        for (let i = 0; i < 10; i++) mr.deallocate(mr.allocate(1 << 20, on), 1 << 20, on);
        const calls = Object.fromEntries(Object.entries(fakeCuda.stats().calls).filter(([, count]) => count > 0));
        expect(calls).toEqual({ cuMemAllocFromPoolAsync: 10, cuMemFreeAsync: 10 });
      }
    } finally {
      stream[Symbol.dispose]();
      mr[Symbol.dispose]();
    }
  });

  it('a CudaAsyncMemoryResource of device 0 used while device 1 is current puts device 1 back', () => {
    const mr = new CudaAsyncMemoryResource();
    cuda.setDevice(1);
    try {
      const ptr = mr.allocate(1000);
      expect(cuda.getDevice()).toBe(1);
      mr.deallocate(ptr, 1000);
      expect(cuda.getDevice()).toBe(1);
    } finally {
      cuda.setDevice(0);
      mr[Symbol.dispose]();
    }
    const again = new CudaAsyncMemoryResource();
    fakeCuda.reset();
    again.deallocate(again.allocate(1000), 1000);
    expect(fakeCuda.stats().calls.cuCtxGetCurrent ?? 0).toBe(0); // device 0's context is known to be current
    again[Symbol.dispose]();
  });

  it('CudaAsyncMemoryResource with IPC where the device cannot: "Requested IPC memory handle type not supported"', () => {
    const ipc = new CudaAsyncMemoryResource({ enableIpc: true });
    ipc[Symbol.dispose]();
    fakeCuda.setAttribute(0, MEMPOOL_SUPPORTED_HANDLE_TYPES, 0);
    try {
      const error = thrown(() => new CudaAsyncMemoryResource({ enableIpc: true }));
      expect(error.code).toBe('ERR_RMM_LOGIC');
      expect(error.message).toMatch(/Requested IPC memory handle type not supported$/);
    } finally {
      fakeCuda.setAttribute(0, MEMPOOL_SUPPORTED_HANDLE_TYPES, 1);
    }
  });

  it('CudaAsyncMemoryResource option errors', () => {
    expect(thrown(() => new CudaAsyncMemoryResource({ initialPoolSize: '2k' })).code).toBe('ERR_INVALID_ARG_VALUE');
    expect(thrown(() => new CudaAsyncMemoryResource({ releaseThreshold: -1 })).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => new CudaAsyncMemoryResource({ enableIpc: 'yes' as never })).code).toBe('ERR_INVALID_ARG_TYPE');
    fakeCuda.failNext('cuMemPoolCreate', 1, CUDA_ERROR_OUT_OF_MEMORY);
    expect(thrown(() => new CudaAsyncMemoryResource()).code).toBe('ERR_CUDA');
    const poolsBefore = fakeCuda.stats().livePools;
    fakeCuda.failNext('cuMemAllocFromPoolAsync', 1, CUDA_ERROR_OUT_OF_MEMORY);
    expect(thrown(() => new CudaAsyncMemoryResource({ initialPoolSize: 4096 })).code).toBe('ERR_RMM_OUT_OF_MEMORY');
    expect(fakeCuda.stats().livePools).toBe(poolsBefore);
  });

  it('PinnedHostMemoryResource failures', () => {
    const mr = new PinnedHostMemoryResource();
    fakeCuda.failNext('cuMemHostAlloc', 1, CUDA_ERROR_OUT_OF_MEMORY);
    expect(thrown(() => mr.allocate(100)).code).toBe('ERR_RMM_OUT_OF_MEMORY');
  });

  it('SystemMemoryResource and SamHeadroomMemoryResource with pageable memory access', () => {
    fakeCuda.setAttribute(0, PAGEABLE_MEMORY_ACCESS, 1);
    try {
      const system = new SystemMemoryResource();
      const sam = new SamHeadroomMemoryResource('1 MiB');
      for (const mr of [system, sam]) {
        const buffer = new DeviceBuffer({ data: pattern(4096, 6), mr });
        expectBytes(buffer.toBytes(), pattern(4096, 6));
        buffer.free();
      }
      fakeCuda.failNext('cuMemAdvise_v2', 1, CUDA_ERROR_INVALID_VALUE);
      expect(thrown(() => sam.allocate(1000)).message).toContain('cuMemAdvise_v2');
    } finally {
      fakeCuda.setAttribute(0, PAGEABLE_MEMORY_ACCESS, 0);
    }
    expect(thrown(() => new SamHeadroomMemoryResource(0)).code).toBe('ERR_RMM_LOGIC');
  });

  it.each([
    { direction: 'host->device', symbol: 'cuMemcpyAsync', nth: 2 }, // a span's DMA, queued by a lane
    { direction: 'host->device', symbol: 'cuEventRecord', nth: 3 }, // a span's event, recorded by a lane
    { direction: 'device->host', symbol: 'cuMemcpyAsync', nth: 1 }, // the first fetch, before the lanes start
    { direction: 'device->host', symbol: 'cuEventSynchronize', nth: 2 }, // a lane waiting for a fetch
  ])(
    'a failing $symbol (call $nth) in a staged (large) $direction copy is a CudaError and the next copy works',
    ({ direction, symbol, nth }) => {
      const size = 24 << 20;
      const buffer = new DeviceBuffer({ size });
      buffer.copyFromHost(pattern(size, 6));
      // The first staged copy made the pinned staging buffers, which stay for the process.
      liveBefore = fakeCuda.stats().liveAllocations - 1;
      fakeCuda.failNext(symbol, nth, CUDA_ERROR_INVALID_VALUE);
      const copy =
        direction === 'host->device'
          ? () => buffer.copyFromHost(pattern(size, 7))
          : () => buffer.copyToHost(new Uint8Array(size));
      const error = thrown(copy);
      expect(error.cudaErrorName).toBe('CUDA_ERROR_INVALID_VALUE');
      expect(error.message).toContain(symbol);
      fakeCuda.clearFaults();
      buffer.copyFromHost(pattern(size, 8));
      expectBytes(buffer.toBytes(), pattern(size, 8));
      buffer.free();
    },
  );
});

// tooling/fake-cuda/test/selftest.c, compiled here: its scenarios call the library as core does,
// each in a process of its own, where a JavaScript test cannot reach (a handle of memory freed and
// allocated again at the same address).
describe.runIf(onFake())("the fake driver's self-test", () => {
  it('passes every scenario', { timeout: 120_000 }, () => {
    const fake = join(dirname(fakeCudaLibraryPath), '..');
    const into = mkdtempSync(join(tmpdir(), 'rmmjs-fake-selftest-'));
    try {
      const include = fileURLToPath(new URL('../include', import.meta.url));
      const binary = join(into, 'selftest');
      const source = join(fake, 'test', 'selftest.c');
      const flags = ['-std=c11', '-Wall', '-Wextra', '-Werror', `-I${include}`];
      const compiled = spawnSync('gcc', [...flags, source, '-o', binary, '-ldl', '-lpthread'], { encoding: 'utf8' });
      expect(compiled.status, compiled.stderr).toBe(0);
      const run = spawnSync(binary, [fakeCudaLibraryPath], { encoding: 'utf8', timeout: 100_000 });
      const lines = run.stdout.trim().split('\n');
      expect(lines.filter((line) => !line.startsWith('ok   ')).slice(0, -1), run.stderr).toEqual([]);
      const [, passed, count] = lines.at(-1)?.match(/^(\d+) of (\d+) scenarios passed$/) ?? [];
      expect([passed, run.status]).toEqual([count, 0]);
      expect(Number(count)).toBeGreaterThanOrEqual(16);
    } finally {
      rmSync(into, { recursive: true, force: true });
    }
  });
});
