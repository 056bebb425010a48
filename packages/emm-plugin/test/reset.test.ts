import { fakeCuda, onFake, thrown } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';
import { fakeDelta, fixtures } from './support.js';

describe('reset', () => {
  const { manager, tracked } = fixtures();
  const fake = fakeDelta();

  it('frees everything it handed out that is still live, views included', () => {
    const tracking = tracked();
    fake.since();
    const mgr = manager();
    const device = mgr.memalloc(1000);
    const view = device.view(10, 20);
    const freedBefore = mgr.memalloc(500);
    freedBefore.free();
    const pinned = mgr.memhostalloc(100);
    const mapped = mgr.memhostalloc(100, { mapped: true });
    const managed = mgr.memallocmanaged(100);
    const owner = new SharedArrayBuffer(100);
    const pin = mgr.mempin(owner);
    const bytes = pinned.bytes;
    mgr.reset();
    for (const memory of [device, view, pinned, mapped, managed, pin]) {
      expect(memory.freed).toBe(true);
    }
    expect(thrown(() => view.ptr).code).toBe('ERR_RMM_DISPOSED');
    expect(bytes.length).toBe(0);
    expect(owner.byteLength).toBe(100);
    expect(tracking.getOutstandingAllocationCount()).toBe(0);
    if (onFake()) {
      expect(fake.now().allocations).toBe(0);
      expect(fake.now().registrations).toBe(0);
    }
    mgr.reset(); // nothing left: a no-op
  });

  it.runIf(onFake())('goes on past a release that fails, then throws its error', () => {
    fake.since();
    const mgr = manager();
    const a = mgr.memhostalloc(64);
    const b = mgr.memallocmanaged(64);
    fakeCuda.failNext('cuMemFreeHost', 1, 'CUDA_ERROR_LAUNCH_FAILED');
    expect(thrown(() => mgr.reset()).cudaErrorName).toBe('CUDA_ERROR_LAUNCH_FAILED');
    expect(a.freed).toBe(false);
    expect(b.freed).toBe(true);
    mgr.reset();
    expect(a.freed).toBe(true);
    expect(fake.now().allocations).toBe(0);
  });
});
