// Bad arguments, driver failures (fake driver fault injection), upstream memory returned on
// dispose, the default arena size, and the memory dump on failure.
import {
  CudaError,
  CudaMemoryResource,
  DeviceBuffer,
  OutOfMemoryError,
  RMMError,
  Stream,
  availableDeviceMemory,
  cuda,
  getCurrentDeviceResource,
} from '@rmmjs/core';
import { ArenaMemoryResource } from '@rmmjs/arena';
import { MiB, disposeAfterEach, fakeCuda, onFake, onHost, runInProcess, thrown } from '@rmmjs/test-helpers';
import { afterEach, describe, expect, it } from 'vitest';
import { arenaSummary } from '@rmmjs/arena';

const keep = disposeAfterEach();
const child = (name: string) => new URL(`./children/${name}.js`, import.meta.url);
const base = () => getCurrentDeviceResource();

describe('ArenaMemoryResource arguments', () => {
  it.each([
    [
      'an upstream that is not a resource',
      () => new ArenaMemoryResource({} as never),
      'ERR_INVALID_ARG_TYPE',
      TypeError,
    ],
    ['no upstream', () => new (ArenaMemoryResource as any)(), 'ERR_INVALID_ARG_TYPE', TypeError],
    [
      'options that are not an object',
      () => new ArenaMemoryResource(base(), 5 as never),
      'ERR_INVALID_ARG_TYPE',
      TypeError,
    ],
    ['options null', () => new ArenaMemoryResource(base(), null as never), 'ERR_INVALID_ARG_TYPE', TypeError],
    ['a negative arenaSize', () => new ArenaMemoryResource(base(), { arenaSize: -1 }), 'ERR_OUT_OF_RANGE', RangeError],
    [
      'a fractional arenaSize',
      () => new ArenaMemoryResource(base(), { arenaSize: 1.5 * MiB + 0.5 }),
      'ERR_OUT_OF_RANGE',
      RangeError,
    ],
    ['arenaSize NaN', () => new ArenaMemoryResource(base(), { arenaSize: NaN }), 'ERR_OUT_OF_RANGE', RangeError],
    [
      'arenaSize Infinity',
      () => new ArenaMemoryResource(base(), { arenaSize: Infinity }),
      'ERR_OUT_OF_RANGE',
      RangeError,
    ],
    [
      'arenaSize over 2^53 - 1',
      () => new ArenaMemoryResource(base(), { arenaSize: 2 ** 53 }),
      'ERR_OUT_OF_RANGE',
      RangeError,
    ],
    [
      'a bigint arenaSize',
      () => new ArenaMemoryResource(base(), { arenaSize: 4n as never }),
      'ERR_INVALID_ARG_TYPE',
      TypeError,
    ],
    [
      'an object arenaSize',
      () => new ArenaMemoryResource(base(), { arenaSize: {} as never }),
      'ERR_INVALID_ARG_TYPE',
      TypeError,
    ],
    [
      'arenaSize null',
      () => new ArenaMemoryResource(base(), { arenaSize: null as never }),
      'ERR_INVALID_ARG_TYPE',
      TypeError,
    ],
    [
      'an unparsable arenaSize',
      () => new ArenaMemoryResource(base(), { arenaSize: '4k' }),
      'ERR_INVALID_ARG_VALUE',
      TypeError,
    ],
    [
      'a dumpLogOnFailure that is not a boolean',
      () => new ArenaMemoryResource(base(), { dumpLogOnFailure: 1 as never }),
      'ERR_INVALID_ARG_TYPE',
      TypeError,
    ],
  ])('%s', (_name, make, code, Class) => {
    const error = thrown(make);
    expect(error).toBeInstanceOf(Class);
    expect(error.code).toBe(code);
  });

  it('errors name the argument, and an option as options.X', () => {
    expect(thrown(() => new ArenaMemoryResource({} as never)).message).toContain('"upstream"');
    expect(thrown(() => new ArenaMemoryResource(base(), { arenaSize: -1 })).message).toBe(
      'The value of "options.arenaSize" is out of range. It must be a non-negative safe integer (0 to 2^53 - 1). Received -1',
    );
    expect(thrown(() => new ArenaMemoryResource(base(), { arenaSize: true as never })).message).toBe(
      'The "options.arenaSize" property must be of type number or string. Received type boolean (true)',
    );
    expect(thrown(() => new ArenaMemoryResource(base(), { arenaSize: '4k' })).message).toBe(
      'The property "options.arenaSize" is invalid. Could not parse 4k as a byte specification',
    );
    expect(thrown(() => new ArenaMemoryResource(base(), { dumpLogOnFailure: 'yes' as never })).message).toBe(
      `The "options.dumpLogOnFailure" property must be of type boolean. Received type string ('yes')`,
    );
  });

  it('an arena under 1 MiB: RMMError ERR_RMM_LOGIC, nothing taken from upstream', () => {
    const before = onFake() ? (fakeCuda.stats().calls.cuMemAlloc_v2 ?? 0) : 0;
    const error = thrown(() => new ArenaMemoryResource(base(), { arenaSize: '1000 KiB' }));
    expect(error).toBeInstanceOf(RMMError);
    expect(error.code).toBe('ERR_RMM_LOGIC');
    expect(error.message).toBe('Arena size smaller than minimum superblock size.');
    if (onFake()) expect(fakeCuda.stats().calls.cuMemAlloc_v2 ?? 0).toBe(before);
  });

  it('a disposed upstream or arena: ERR_RMM_DISPOSED', () => {
    if (!onHost()) {
      const upstream = new CudaMemoryResource();
      upstream[Symbol.dispose]();
      expect(thrown(() => new ArenaMemoryResource(upstream, { arenaSize: MiB })).code).toBe('ERR_RMM_DISPOSED');
    }
    const mr = new ArenaMemoryResource(base(), { arenaSize: MiB });
    mr[Symbol.dispose]();
    expect(thrown(() => mr.allocate(100)).code).toBe('ERR_RMM_DISPOSED');
    expect(thrown(() => mr.upstreamMr).code).toBe('ERR_RMM_DISPOSED');
  });

  it('allocate and deallocate check their arguments', () => {
    const mr = keep(new ArenaMemoryResource(base(), { arenaSize: MiB }));
    expect(thrown(() => mr.allocate(-1)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => mr.allocate('1' as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => mr.allocate(1, null as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => mr.deallocate(1 as never, 1)).code).toBe('ERR_INVALID_ARG_TYPE');
  });
});

describe('the default arena size', () => {
  it.runIf(onFake())('half the free device memory, aligned down to 256', () => {
    const [free] = availableDeviceMemory();
    const before = fakeCuda.stats().liveDeviceBytes[0];
    const mr = keep(new ArenaMemoryResource(new CudaMemoryResource()));
    const expected = Math.floor(free / 2 / 256) * 256;
    expect(arenaSummary(mr).arenaSize).toBe(expected);
    expect(fakeCuda.stats().liveDeviceBytes[0] - before).toBe(expected);
  });

  it.runIf(onHost())('host mode: half the available host memory, at most 256 MiB', () => {
    const [available] = availableDeviceMemory();
    const mr = keep(new ArenaMemoryResource(base()));
    const size = arenaSummary(mr).arenaSize;
    expect(size % 256).toBe(0);
    expect(size).toBeLessThanOrEqual(256 * MiB);
    // Available host memory moves; where there is plenty, it is exactly 256 MiB.
    if (available > 1024 * MiB) expect(size).toBe(256 * MiB);
    const all = mr.allocate(size);
    expect(thrown(() => mr.allocate(1)).code).toBe('ERR_RMM_OUT_OF_MEMORY');
    mr.deallocate(all, size);
  });
});

describe.runIf(onFake())('driver failures (fake driver)', () => {
  afterEach(() => fakeCuda.clearFaults());

  it('the upstream cannot give the arena: its error, nothing leaks', () => {
    const live = fakeCuda.stats().liveAllocations;
    fakeCuda.failNext('cuMemAlloc_v2', 1, 'CUDA_ERROR_OUT_OF_MEMORY');
    const error = thrown(() => new ArenaMemoryResource(new CudaMemoryResource(), { arenaSize: 4 * MiB }));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.message).toContain('failed to allocate 4194304 bytes');
    expect(fakeCuda.stats().liveAllocations).toBe(live);
    fakeCuda.failNext('cuMemAlloc_v2', 1, 'CUDA_ERROR_INVALID_VALUE');
    const cudaError = thrown(() => new ArenaMemoryResource(new CudaMemoryResource(), { arenaSize: 4 * MiB }));
    expect(cudaError).toBeInstanceOf(CudaError);
    expect(cudaError.cudaErrorName).toBe('CUDA_ERROR_INVALID_VALUE');
    expect(fakeCuda.stats().liveAllocations).toBe(live);
  });

  it('an arena larger than the device: OutOfMemoryError from the upstream', () => {
    const error = thrown(() => new ArenaMemoryResource(new CudaMemoryResource(), { arenaSize: '1 TiB' }));
    expect(error).toBeInstanceOf(OutOfMemoryError);
  });

  it('the default size cannot be read: CudaError', () => {
    fakeCuda.failNext('cuMemGetInfo_v2', 1, 'CUDA_ERROR_INVALID_CONTEXT');
    const error = thrown(() => new ArenaMemoryResource(new CudaMemoryResource()));
    expect(error).toBeInstanceOf(CudaError);
    expect(error.code).toBe('ERR_CUDA');
  });

  it('a failed event record fails the free on a stream, and the block stays allocated', () => {
    const mr = keep(new ArenaMemoryResource(new CudaMemoryResource(), { arenaSize: 2 * MiB }));
    const stream = keep(new Stream());
    const p = mr.allocate(1000, stream);
    fakeCuda.failNext('cuEventRecord', 1, 'CUDA_ERROR_LAUNCH_FAILED');
    expect(thrown(() => mr.deallocate(p, 1000, stream))).toBeInstanceOf(CudaError);
    const other = mr.allocate(1000, stream);
    expect(other).not.toBe(p);
    mr.deallocate(p, 1000, stream);
    mr.deallocate(other, 1000, stream);
  });

  it('the arena that cannot go back upstream when it is destroyed: logged (in a child: the debug log)', () => {
    const run = runInProcess(child('cannot-go-upstream'), {
      env: { RMMJS_FAKE_CUDA_FAIL: 'cuMemFree_v2:1:CUDA_ERROR_LAUNCH_FAILED' },
      debugLog: true,
    });
    expect([run.status, run.stderr]).toEqual([0, '']);
    expect(run.log).toContain(
      '[error ] ArenaMemoryResource: returning memory upstream failed: CUDA error at cuMemFree_v2: CUDA_ERROR_LAUNCH_FAILED',
    );
  });
});

describe.runIf(onFake())('an arena on device 1 (fake driver)', () => {
  it("takes its memory there and synchronises in that device's context", () => {
    const before = fakeCuda.stats().liveDeviceBytes;
    cuda.setDevice(1);
    let mr: ArenaMemoryResource;
    try {
      mr = keep(new ArenaMemoryResource(keep(new CudaMemoryResource()), { arenaSize: 4 * MiB }));
    } finally {
      cuda.setDevice(0);
    }
    expect(mr.device).toBe(1);
    const after = fakeCuda.stats().liveDeviceBytes;
    expect([after[0] - before[0], after[1] - before[1]]).toEqual([0, 4 * MiB]);
    // From device 0's context: frees on the default and a device-1 stream, large frees (the
    // device-1 stream's event recorded), a defragmentation and a stream taking the memory (waits
    // on the events, the legacy stream's recorded then).
    cuda.setDevice(1);
    const stream = keep(new Stream());
    cuda.setDevice(0);
    const a = mr.allocate(1000);
    const b = mr.allocate(1000, stream);
    const c = mr.allocate(2 * MiB);
    mr.deallocate(a, 1000);
    mr.deallocate(b, 1000, stream);
    mr.deallocate(c, 2 * MiB);
    const all = mr.allocate(4 * MiB, stream);
    expect(all).toBe(a);
    mr.deallocate(all, 4 * MiB, stream);
    expect(mr.allocate(4 * MiB)).toBe(a);
    mr.deallocate(a, 4 * MiB);
  });
});

describe.runIf(onFake())('upstream memory and driver objects are returned (fake driver)', () => {
  it('on dispose: one upstream allocation while it lives, none after', () => {
    const before = fakeCuda.stats();
    const mr = new ArenaMemoryResource(new CudaMemoryResource(), { arenaSize: 16 * MiB });
    const streams = [new Stream(), new Stream()];
    for (let i = 0; i < 100; i++) {
      const stream = streams[i % 2];
      const sizes = [100, 5000, 300_000, 2 * MiB];
      const pointers = sizes.map((size) => mr.allocate(size, stream));
      pointers.forEach((p, j) => mr.deallocate(p, sizes[j], stream));
    }
    const during = fakeCuda.stats();
    expect(during.liveAllocations - before.liveAllocations).toBe(1);
    expect((during.calls.cuMemAlloc_v2 ?? 0) - (before.calls.cuMemAlloc_v2 ?? 0)).toBe(1);
    expect(during.liveDeviceBytes[0] - before.liveDeviceBytes[0]).toBe(16 * MiB);
    mr[Symbol.dispose]();
    for (const stream of streams) stream[Symbol.dispose]();
    const after = fakeCuda.stats();
    expect(after.liveAllocations).toBe(before.liveAllocations);
    expect(after.liveDeviceBytes[0]).toBe(before.liveDeviceBytes[0]);
    expect(after.liveEvents).toBe(before.liveEvents);
    expect(after.liveStreams).toBe(before.liveStreams);
  });

  it('a live buffer keeps the arena (and its memory) until the buffer is freed', () => {
    const before = fakeCuda.stats().liveAllocations;
    const mr = new ArenaMemoryResource(new CudaMemoryResource(), { arenaSize: 4 * MiB });
    const buffer = new DeviceBuffer({ size: 1000, mr });
    mr[Symbol.dispose]();
    expect(fakeCuda.stats().liveAllocations).toBe(before + 1);
    buffer.free();
    expect(fakeCuda.stats().liveAllocations).toBe(before);
  });
});

describe('dumpLogOnFailure', () => {
  // In a child process: RMM_DEBUG_LOG_FILE is read when the logger starts.
  function runWithLog(dump: boolean, level?: number) {
    const args = level === undefined ? [String(dump)] : [String(dump), String(level)];
    const run = runInProcess(child('runs-out'), { args, debugLog: true });
    return { status: run.status, stdout: run.stdout, stderr: run.stderr, text: run.log! };
  }

  const summary = (line: string) => line.replace(/^\[[^\]]*\]\[[^\]]*\]\[[^\]]*\] /, '');

  it("writes RMM's arena summary to the debug log when an allocation fails", () => {
    const { status, stdout, stderr, text } = runWithLog(true);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(stdout).toBe(
      'ERR_RMM_OUT_OF_MEMORY: Maximum pool size exceeded (failed to allocate 8.000000 MiB): No room in arena.',
    );
    const lines = text.trim().split('\n');
    expect(lines.every((line) => line.includes('[info  ]'))).toBe(true);
    expect(lines.map(summary)).toEqual([
      '**************************************************',
      'Ran out of memory trying to allocate 8.000000 MiB.',
      '**************************************************',
      'Global arena:',
      '  Arena size: 1024.000000 KiB',
      '  # superblocks: 1',
      '  Total free memory: 960.000000 KiB',
      '  Largest block of free memory: 960.000000 KiB',
      '  Fragmentation: 0.00',
    ]);
  });

  it('at debug level, also each superblock', () => {
    const { text } = runWithLog(true, 1);
    const lines = text.trim().split('\n').map(summary);
    expect(lines).toContain('  Total size of superblocks: 1024.000000 KiB');
    const superblock = lines.find((line) => line.startsWith('    Superblock 0: '));
    expect(superblock).toMatch(
      /^ {4}Superblock 0: start=0x[0-9a-f]+, end=0x[0-9a-f]+, size=1024\.000000 KiB, empty=F, # free blocks=1, max free=960\.000000 KiB, gap=0\.000000 B$/,
    );
  });

  it('writes nothing without it', () => {
    const { status, stdout, text } = runWithLog(false);
    expect(status).toBe(0);
    expect(stdout).toContain('No room in arena.');
    expect(text).not.toContain('Ran out of memory');
  });
});
