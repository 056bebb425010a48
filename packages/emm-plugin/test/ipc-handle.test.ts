import { CudaMemoryResource, setCurrentDeviceResource } from '@rmmjs/core';
import { exportIpcHandle } from '@rmmjs/interop';
import { PoolMemoryResource } from '@rmmjs/pool';
import { expectBytes, onHost, pattern, runInProcess, thrown, withCuda } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';
import { fixtures } from './support.js';

describe('getIpcHandle: a CUDA IPC handle of memory from memalloc', () => {
  const { keep, manager } = fixtures();

  it('refuses what is not a MemoryPointer, and freed memory', () => {
    const emm = manager();
    for (const bad of [undefined, null, 42, {}, emm]) {
      expect(thrown(() => emm.getIpcHandle(bad as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    }
    expect(thrown(() => emm.getIpcHandle(emm.memhostalloc(64) as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    const memory = emm.memalloc(64);
    memory.free();
    expect(thrown(() => emm.getIpcHandle(memory)).code).toBe('ERR_RMM_DISPOSED');
  });

  it('refuses empty memory', () => {
    const emm = manager();
    const error = thrown(() => emm.getIpcHandle(emm.memalloc(0)));
    expect(error.code).toBe('ERR_INVALID_ARG_VALUE');
    expect(error.message).toBe('The argument "memory" is empty: it has no memory to share');
  });

  it.runIf(onHost())('needs CUDA: host mode is ERR_CUDA_DRIVER_NOT_FOUND', () => {
    const emm = manager();
    expect(thrown(() => emm.getIpcHandle(emm.memalloc(64))).code).toBe('ERR_CUDA_DRIVER_NOT_FOUND');
  });

  it.runIf(withCuda())('refuses managed and mapped host memory, which CUDA IPC cannot share', () => {
    const emm = manager();
    const managed = thrown(() => emm.getIpcHandle(emm.memallocmanaged(64)));
    expect(managed.code).toBe('ERR_INVALID_ARG_VALUE');
    expect(managed.message).toBe('The argument "memory" is managed memory, which CUDA IPC cannot share');
    const mapped = thrown(() => emm.getIpcHandle(emm.memhostalloc(64, { mapped: true }) as never));
    expect(mapped.code).toBe('ERR_INVALID_ARG_VALUE');
    expect(mapped.message).toBe('The argument "memory" is page-locked host memory, which CUDA IPC cannot share');
  });

  it.runIf(withCuda())("is the allocation's handle plus the memory's offset, for a view too", () => {
    const pool = keep(new PoolMemoryResource(keep(new CudaMemoryResource()), { initialPoolSize: 2 ** 20 }));
    setCurrentDeviceResource(pool);
    const emm = manager();
    const pad = emm.memalloc(4096);
    const memory = emm.memalloc(1000);
    const whole = exportIpcHandle(memory.buffer!);
    expect(whole.offset).toBeGreaterThanOrEqual(4096);
    expect(emm.getIpcHandle(memory)).toEqual(whole);
    const view = memory.view(100, 300);
    expect(emm.getIpcHandle(view)).toEqual({ ...whole, offset: whole.offset + 100, size: 200 });
    pad.free();
  });

  it.runIf(withCuda())('another process opens it, reads the bytes of a view and writes them', () => {
    const emm = manager({ device: 0 });
    const memory = emm.memalloc(500);
    memory.buffer!.copyFromHost(pattern(500, 3));
    const handle = emm.getIpcHandle(memory.view(200));
    const run = runInProcess(new URL('./children/opens-a-view.js', import.meta.url), {
      args: [JSON.stringify(handle)],
    });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe(`300 ${pattern(500, 3)[200]}`);
    const bytes = memory.buffer!.toBytes();
    expectBytes(bytes.subarray(199, 203), [pattern(500, 3)[199], 7, 7, pattern(500, 3)[202]]);
    memory.free();
  });
});
