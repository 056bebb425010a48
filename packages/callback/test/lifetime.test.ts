// Lifetime: deallocation from the collector (core frees an unreachable DeviceBuffer from a finalizer on the
// JavaScript thread) and at the end of an environment, in fresh processes with --expose-gc.
import { describe, expect, it } from 'vitest';
import { runNode, workerInChild } from './support.js';

const collect = `async function collect() {
  for (let i = 0; i < 5; i++) { globalThis.gc(); await new Promise((r) => setImmediate(r)); }
}`;

describe('garbage collection', () => {
  it('a DeviceBuffer freed by the collector calls deallocate with its pointer, size and stream', () => {
    const run = runNode(`${collect}
      const base = core.getCurrentDeviceResource();
      const calls = [];
      const mr = new callback.CallbackMemoryResource(
        (n, s) => { const p = base.allocate(n, s); calls.push(['allocate', n, s === core.DEFAULT_STREAM, p]); return p; },
        (p, n, s) => { calls.push(['deallocate', n, s === core.DEFAULT_STREAM, p]); base.deallocate(p, n, s); });
      (() => { new core.DeviceBuffer({ size: 4096, mr }); })();
      await collect();
      console.log(JSON.stringify(calls.map(([op, n, d, p]) => [op, n, d, p === calls[0][3]])));`);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('[["allocate",4096,true,true],["deallocate",4096,true,true]]');
  });

  it('a resource reachable only from collected buffers is released, with its functions', () => {
    const run = runNode(`${collect}
      const base = core.getCurrentDeviceResource();
      let collected = 0;
      const registry = new FinalizationRegistry(() => { collected++; });
      let freed = 0;
      (() => {
        const deallocate = (p, n, s) => { freed++; base.deallocate(p, n, s); };
        registry.register(deallocate, 'deallocate');
        const mr = new callback.CallbackMemoryResource((n, s) => base.allocate(n, s), deallocate);
        for (let i = 0; i < 10; i++) new core.DeviceBuffer({ size: 1000, mr });
      })();
      await collect();
      await collect();
      console.log(freed, collected);`);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('10 1');
  });

  it('a deallocate that throws in the collector is logged, and later errors are their own', () => {
    const run = runNode(`${collect}
      const base = core.getCurrentDeviceResource();
      let leaked;
      const mr = new callback.CallbackMemoryResource(
        (n, s) => base.allocate(n, s),
        (p, n, s) => { leaked = [p, n]; throw new Error('deallocate failed in the collector'); });
      (() => { new core.DeviceBuffer({ size: 2048, mr }); })();
      await collect();
      const later = new Error('later');
      const failing = new callback.CallbackMemoryResource(() => { throw later; }, () => {});
      let same = false;
      try { failing.allocate(10); } catch (e) { same = e === later; }
      let oom;
      try { new callback.CallbackMemoryResource(() => 0n, () => {}).allocate(10); } catch (e) { oom = e.constructor.name; }
      base.deallocate(leaked[0], leaked[1]);
      console.log(leaked[1], same, oom);`);
    expect(run.stdout).toBe('2048 true OutOfMemoryError');
    expect(run.stderr).toContain(
      'DeviceBuffer: deallocation during cleanup failed: CallbackMemoryResource: the deallocate callback threw Error: deallocate failed in the collector',
    );
  });
});

describe('the end of an environment', () => {
  it('buffers a worker left unfreed on its own resource fail cleanly when it exits', () => {
    const run = runNode(`
      const worker = ${workerInChild('leaves-buffers')};
      await new Promise((resolve) => worker.once('exit', resolve));
      console.log('exited');`);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('exited');
    const logged = run.stderr.split('\n').filter((line) => line.includes('deallocation during cleanup failed'));
    expect(logged).toHaveLength(2);
    for (const line of logged) {
      expect(line).toContain(
        'DeviceBuffer: deallocation during cleanup failed: CallbackMemoryResource: the deallocate callback cannot run: the JavaScript environment (thread) that created the resource has exited',
      );
    }
  });

  it('a buffer left unfreed at process exit does not crash the process', () => {
    const run = runNode(`
      const base = core.getCurrentDeviceResource();
      const mr = new callback.CallbackMemoryResource((n, s) => base.allocate(n, s), (p, n, s) => base.deallocate(p, n, s));
      core.setCurrentDeviceResource(mr);
      globalThis.kept = new core.DeviceBuffer({ size: 100 });
      console.log('done');`);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('done');
  });

  // node-addon-api throws a C++ exception when asked to throw into a terminating environment;
  // rmmjs's addons are built with NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS so it is dropped instead.
  it('a worker terminated while a callback runs ends cleanly', () => {
    const run = runNode(`
      const worker = ${workerInChild('busy-callback')};
      await new Promise((resolve) => worker.once('message', resolve));
      await worker.terminate();
      console.log('terminated');`);
    expect(run.stdout).toBe('terminated');
    expect(run.status).toBe(0);
  });
});
