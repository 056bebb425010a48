// Regression tests for crash and corruption bugs reachable through the public API: bad pointers
// and interfaces, proxies, error constructors, double frees and failures on the free path.
import {
  CudaAsyncMemoryResource,
  CudaAsyncViewMemoryResource,
  CudaError,
  CudaMemoryResource,
  DEFAULT_STREAM,
  DeviceBuffer,
  ManagedMemoryResource,
  OutOfMemoryError,
  PinnedHostMemoryResource,
  RMMError,
  Stream,
  SystemMemoryResource,
  cuda,
  getCurrentDeviceResource,
  setCurrentDeviceResource,
  setPerDeviceResource,
  type DeviceMemoryResource,
} from '@rmmjs/core';
import { expectBytes, fakeCuda, onFake, pattern, rejected, runInProcess, thrown } from '@rmmjs/test-helpers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pageableMemoryAccess } from './resource-table.js';

const CUDA_ERROR_INVALID_VALUE = 1;
const CUDA_ERROR_LAUNCH_FAILED = 719;
const PAGEABLE_MEMORY_ACCESS = 88;

const child = (name: string) => new URL(`./children/${name}.js`, import.meta.url);

function expectCoded(error: any, Class: Function, code: string, text?: string): void {
  expect(error).toBeInstanceOf(Class);
  expect(error.code).toBe(code);
  if (text !== undefined) expect(error.message).toContain(text);
}

describe.runIf(pageableMemoryAccess())('SystemMemoryResource refuses pointers it never handed out', () => {
  it('deallocate(1n) and other odd addresses are ERR_RMM_LOGIC, also after frees left holes in its table', () => {
    const mr = new SystemMemoryResource();
    const keep = new DeviceBuffer({ data: pattern(1000, 1), mr });
    // Rounds of frees that leave the table in different states (a table with tombstones took 1
    // for one whenever its probe for 1 met a freed slot first).
    for (let round = 0; round < 16; round++) {
      const ptrs = Array.from({ length: 500 + 250 * round }, (_, i) => mr.allocate(64 + (i % 512)));
      for (const [i, ptr] of ptrs.entries()) mr.deallocate(ptr, 64 + (i % 512));
      for (const ptr of [1n, 2n, 255n, 257n, keep.ptr + 8n, keep.ptr + 256n, 2n ** 64n - 1n]) {
        const error = thrown(() => mr.deallocate(ptr, 256));
        expectCoded(error, RMMError, 'ERR_RMM_LOGIC', 'did not allocate or already deallocated');
      }
    }
    expectBytes(keep.toBytes(), pattern(1000, 1));
    keep.free();
    mr[Symbol.dispose]();
  });
});

describe('copyFromDevice validates a foreign CUDA array interface', () => {
  const live: DeviceBuffer[] = [];
  afterEach(() => {
    for (const buffer of live.splice(0)) buffer[Symbol.dispose]();
  });
  const cai = (fields: Record<string, unknown>) => ({
    cudaArrayInterface: { data: [0n, false], shape: [4], typestr: '|u1', version: 3, ...fields },
  });

  it('a null pointer is ERR_INVALID_ARG_VALUE (never a copy from address 0); with no bytes it copies nothing', () => {
    const buffer = new DeviceBuffer({ data: pattern(16, 2) });
    live.push(buffer);
    for (const data of [
      [0n, false],
      [0, false],
    ]) {
      expectCoded(
        thrown(() => buffer.copyFromDevice(cai({ data }))),
        TypeError,
        'ERR_INVALID_ARG_VALUE',
        'null',
      );
    }
    buffer.copyFromDevice(cai({ data: [0n, false], shape: [0] }));
    expectBytes(buffer.toBytes(), pattern(16, 2));
  });

  it('pointers that are not addresses, shapes, typestrs and strides that are wrong: coded errors', () => {
    const buffer = new DeviceBuffer({ data: pattern(16, 3) });
    const source = new DeviceBuffer({ data: pattern(16, 4) });
    live.push(buffer, source);
    const ptr = source.ptr;
    const bad: Array<Record<string, unknown>> = [
      { data: [Number(ptr) + 0.5, false] },
      { data: [-256, false] },
      { data: [-256n, false] },
      { data: [2n ** 64n, false] },
      { data: [Number.MAX_SAFE_INTEGER + 2, false] },
      { data: ['0x100', false] },
      { data: [ptr] },
      { data: ptr },
      { data: [ptr, false], shape: [-4] },
      { data: [ptr, false], shape: [1.5] },
      { data: [ptr, false], shape: ['4'] },
      { data: [ptr, false], shape: [NaN] },
      { data: [ptr, false], shape: [Infinity] },
      { data: [ptr, false], shape: 4 },
      { data: [ptr, false], typestr: 'u1' },
      { data: [ptr, false], typestr: '|u0' },
      { data: [ptr, false], typestr: '|u1x' },
      { data: [ptr, false], typestr: '|x1' },
      { data: [ptr, false], typestr: 1 },
      { data: [ptr, false], strides: [2] },
      { data: [ptr, false], strides: [-1] },
      { data: [ptr, false], strides: 'x' },
    ];
    for (const fields of bad) {
      const error = thrown(() => buffer.copyFromDevice(cai(fields)));
      expect(
        error,
        JSON.stringify(fields, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)),
      ).toBeInstanceOf(TypeError);
      expect(error.code).toBe('ERR_INVALID_ARG_VALUE');
      expect(error.message).toContain('"src"');
    }
    expectBytes(buffer.toBytes(), pattern(16, 3));
    buffer.copyFromDevice(cai({ data: [ptr, true], shape: [2], typestr: '<u2', strides: [2] }));
    expectBytes(buffer.toBytes().subarray(0, 4), pattern(16, 4).subarray(0, 4));
  });
});

describe('a Proxy is not a resource, a stream or a buffer: coded errors, never a bare TypeError', () => {
  it('as mr, stream, upstream or source, at every entry point', () => {
    const mr = getCurrentDeviceResource();
    const stream = new Stream();
    const buffer = new DeviceBuffer({ data: pattern(8, 5) });
    const { proxy: revoked, revoke } = Proxy.revocable({}, {});
    revoke();
    const fakeMrs = [new Proxy(mr, {}), revoked];
    const fakeStreams = [new Proxy(stream, {}), new Proxy(DEFAULT_STREAM, {}), revoked];
    const calls: Array<() => unknown> = [];
    for (const fake of fakeMrs) {
      calls.push(
        () => new DeviceBuffer({ size: 8, mr: fake as DeviceMemoryResource }),
        () => setCurrentDeviceResource(fake as DeviceMemoryResource),
        () => setPerDeviceResource(0, fake as DeviceMemoryResource),
        () => mr.isEqual(fake as DeviceMemoryResource),
      );
    }
    for (const fake of fakeStreams) {
      const s = fake as Stream;
      calls.push(
        () => new DeviceBuffer({ size: 8, stream: s }),
        () => mr.allocate(8, s),
        () => mr.deallocate(0n, 0, s),
        () => buffer.copyToHost(undefined, s),
        () => buffer.copyFromHost(new Uint8Array(1), s),
        () => buffer.resize(4, s),
        () => buffer.reserve(4, s),
        () => buffer.prefetch(0, s),
        () => DeviceBuffer.toDevice(new Uint8Array(1), s),
      );
    }
    for (const call of calls) {
      const error = thrown(call);
      expect(error, String(call)).toBeInstanceOf(TypeError);
      expect(error.code, String(call)).toBe('ERR_INVALID_ARG_TYPE');
    }
    const fromProxy = thrown(() => buffer.copyFromDevice(new Proxy(buffer, {})));
    expect(fromProxy.code).toMatch(/^ERR_INVALID_ARG_(TYPE|VALUE)$/);
    expect(thrown(() => buffer.copyFromDevice(revoked as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(stream.equals(new Proxy(stream, {}))).toBe(false);
    expect(stream.equals(revoked)).toBe(false);
    expectBytes(buffer.toBytes(), pattern(8, 5));
    buffer.free();
    stream[Symbol.dispose]();
  });

  it('asynchronous entry points reject with the code', async () => {
    const buffer = new DeviceBuffer({ size: 8 });
    const s = new Proxy(DEFAULT_STREAM, {}) as Stream;
    expect((await rejected(buffer.copyToHostAsync(undefined, s))).code).toBe('ERR_INVALID_ARG_TYPE');
    expect((await rejected(buffer.copyFromHostAsync(new Uint8Array(8), s))).code).toBe('ERR_INVALID_ARG_TYPE');
    expect((await rejected(DeviceBuffer.toDeviceAsync(new Uint8Array(8), s))).code).toBe('ERR_INVALID_ARG_TYPE');
    buffer.free();
  });
});

describe('error constructors', () => {
  it('take null (or no object) as options', () => {
    for (const options of [null, undefined, 5, 'x']) {
      const error = new RMMError('m', options as never);
      expect(error.code).toBe('ERR_RMM_LOGIC');
      expect(error.message).toBe('m');
      expect('cause' in error).toBe(false);
      expect(new OutOfMemoryError('m', options as never).code).toBe('ERR_RMM_OUT_OF_MEMORY');
      const cudaError = new CudaError('m', options as never);
      expect(cudaError.code).toBe('ERR_CUDA');
      expect(cudaError.cudaErrorName).toBe('CUDA_SUCCESS');
    }
  });
});

describe.runIf(onFake())('double and foreign frees on the fake driver', () => {
  const cases: Array<[string, () => DeviceMemoryResource]> = [
    ['CudaMemoryResource', () => new CudaMemoryResource()],
    ['ManagedMemoryResource', () => new ManagedMemoryResource()],
    ['PinnedHostMemoryResource', () => new PinnedHostMemoryResource()],
    ['CudaAsyncMemoryResource', () => new CudaAsyncMemoryResource()],
    ['CudaAsyncViewMemoryResource', () => new CudaAsyncViewMemoryResource(cuda.getDefaultMemPool())],
  ];
  it.each(cases)('%s: freeing twice or at a foreign address is RMMError ERR_RMM_LOGIC', (name, make) => {
    const mr = make();
    const keep = new DeviceBuffer({ data: pattern(1000, 6), mr });
    const ptr = mr.allocate(4096);
    mr.deallocate(ptr, 4096);
    for (const foreign of [ptr, keep.ptr + 256n]) {
      const error = thrown(() => mr.deallocate(foreign, 4096));
      expectCoded(error, RMMError, 'ERR_RMM_LOGIC', `${name}: cannot deallocate`);
      expect(error).not.toBeInstanceOf(CudaError);
    }
    expectBytes(keep.toBytes(), pattern(1000, 6));
    keep.free();
    mr[Symbol.dispose]();
  });
});

describe.runIf(onFake())('a failure on the free path before the memory is freed', () => {
  let liveBefore: number;
  beforeEach(() => {
    fakeCuda.reset();
    liveBefore = fakeCuda.stats().liveAllocations;
  });
  afterEach(() => {
    fakeCuda.clearFaults();
    expect(fakeCuda.stats().liveAllocations).toBe(liveBefore);
  });

  it('leaves the buffer valid and owning its memory; free() again works', () => {
    const buffer = new DeviceBuffer({ data: pattern(4096, 7) });
    fakeCuda.failNext('cuCtxGetCurrent', 1, CUDA_ERROR_LAUNCH_FAILED);
    const error = thrown(() => buffer.free());
    expectCoded(error, CudaError, 'ERR_CUDA', 'cuCtxGetCurrent');
    expect(buffer.freed).toBe(false);
    expect(fakeCuda.stats().liveAllocations).toBe(liveBefore + 1);
    expectBytes(buffer.toBytes(), pattern(4096, 7));
    buffer.free();
    expect(buffer.freed).toBe(true);
  });

  it('a resource whose stream synchronisation before the free fails: the buffer keeps its memory', () => {
    fakeCuda.setAttribute(0, PAGEABLE_MEMORY_ACCESS, 1);
    try {
      for (const mr of [new PinnedHostMemoryResource(), new SystemMemoryResource()]) {
        const buffer = new DeviceBuffer({ data: pattern(512, 8), mr });
        fakeCuda.failNext('cuStreamSynchronize', 1, CUDA_ERROR_LAUNCH_FAILED);
        expectCoded(
          thrown(() => buffer.free()),
          CudaError,
          'ERR_CUDA',
          'cuStreamSynchronize',
        );
        expect(buffer.freed).toBe(false);
        expectBytes(buffer.toBytes(), pattern(512, 8));
        buffer.free();
        expect(buffer.freed).toBe(true);
        mr[Symbol.dispose]();
      }
    } finally {
      fakeCuda.setAttribute(0, PAGEABLE_MEMORY_ACCESS, 0);
    }
  });

  it('a free the driver refuses as invalid is a double free: ERR_RMM_LOGIC, and the buffer is gone', () => {
    const buffer = new DeviceBuffer({ size: 64 });
    fakeCuda.failNext('cuMemFree_v2', 1, CUDA_ERROR_INVALID_VALUE);
    expectCoded(
      thrown(() => buffer.free()),
      RMMError,
      'ERR_RMM_LOGIC',
      'cannot deallocate',
    );
    expect(buffer.freed).toBe(true);
    expect(thrown(() => buffer.free()).code).toBe('ERR_RMM_DISPOSED');
    // The fake still holds what it refused to free: that is the leak the check below expects.
    liveBefore += 1;
  });
});

describe.runIf(onFake())('the pinned staging of large copies', () => {
  it('a transient failure while it is first made leaks nothing and is retried by the next copy', () => {
    const run = runInProcess(child('staging-retries'));
    // Each failed attempt is a warning and leaves nothing; then the ring: 1 stream, 1 + 8 events,
    // 8 pinned chunks (the default depth; the lanes only copy on the host).
    const warnings = run.stderr.split('\n').filter(Boolean);
    expect(warnings).toHaveLength(6);
    for (const line of warnings) {
      expect(line).toContain(
        'the pinned staging buffers for host copies could not be made (tried again by the next large copy)',
      );
    }
    expect(run.stdout).toBe('0 0 0,0 0 0,0 0 0,1 9 8');
  });

  // Spans (one DMA each) of 20 MiB + 12345 B in chunks of 1 MiB: from 512 KiB, each half of what
  // lies before it, up to a chunk (0.5 0.5 0.5 0.75), 16 chunks, then half of what is left, down to
  // 512 KiB again (0.875 0.5), and the last 0.387 MiB: 23. With the smallest span a chunk: 20 chunks
  // and 12345 B: 21. Sizes that are not whole 64 KiB are rounded down: 1100000 B to 1 MiB, 550000 B
  // to 512 KiB (unrounded, they would make 22 spans).
  it.each([
    { chunkBytes: 1 << 20, stores: 0, smallestSpan: undefined, spans: 23 },
    { chunkBytes: 1 << 20, stores: 3, smallestSpan: 1 << 20, spans: 21 },
    { chunkBytes: 1100000, stores: 1, smallestSpan: 550000, spans: 23 },
  ])(
    'takes its chunk size ($chunkBytes), depth, piece, lane count, stores ($stores) and smallest span ($smallestSpan) from setStagingShape; every byte arrives both ways',
    ({ chunkBytes, stores, smallestSpan, spans }) => {
      const shape = { chunkBytes, depth: 3, pieceBytes: 192 << 10, lanes: 3, stores, smallestSpan };
      const run = runInProcess(child('staging-shape'), { args: [JSON.stringify(shape)] });
      expect(run.stderr).toBe('');
      // 1 stream, 1 + 3 events, 3 pinned chunks; one DMA per span.
      expect(run.stdout).toBe(`1 4 3 ${spans}`);
    },
  );

  it('refuses a shape out of range (changing nothing), and any shape once the first staged copy fixed it', () => {
    const run = runInProcess(child('staging-refusals'));
    expect(run.stderr).toBe('');
    const range = (name: string, from: number, to: number, received: number) =>
      `RangeError | ERR_OUT_OF_RANGE | The value of "shape.${name}" is out of range. It must be an integer from ${from} to ${to}. Received ${received}`;
    expect(JSON.parse(run.stdout)).toEqual([
      range('stores', 0, 3, 4),
      range('depth', 1, 64, 0),
      range('chunkBytes', 65536, 1073741824, 1000),
      range('pieceBytes', 65536, 1073741824, -1),
      range('lanes', 1, 64, 65),
      range('smallestSpan', 65536, 1073741824, 2 ** 31),
      'TypeError | ERR_INVALID_ARG_TYPE | shape.lanes must be an integer',
      'TypeError | ERR_INVALID_ARG_TYPE | shape.depth must be an integer',
      'TypeError | ERR_INVALID_ARG_TYPE | shape has no member chunk',
      '1 8', // the defaults (the refused { depth: 2 } changed nothing): 1 stream, 8 pinned chunks
      "RMMError | ERR_RMM_LOGIC | setStagingShape: the first staged copy of this process fixed the staging's shape already",
    ]);
  });
});
