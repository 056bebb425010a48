// Lifetime: deallocation from the collector (core frees an unreachable DeviceBuffer from a finalizer on the
// JavaScript thread) and at the end of an environment, in fresh processes with --expose-gc.
import { describe, expect, it } from 'vitest';
import { runChild } from './support.js';

describe('garbage collection', () => {
  it('a DeviceBuffer freed by the collector calls deallocate with its pointer, size and stream', () => {
    const run = runChild('collects-a-buffer');
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('[["allocate",4096,true,true],["deallocate",4096,true,true]]');
  });

  it('a resource reachable only from collected buffers is released, with its functions', () => {
    const run = runChild('collects-a-resource');
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('10 1');
  });

  it('a deallocate that throws in the collector is logged, and later errors are their own', () => {
    const run = runChild('throws-in-the-collector');
    expect(run.stdout).toBe('2048 true OutOfMemoryError');
    expect(run.stderr).toContain(
      'DeviceBuffer: deallocation during cleanup failed: CallbackMemoryResource: the deallocate callback threw Error: deallocate failed in the collector',
    );
  });
});

describe('the end of an environment', () => {
  it('buffers a worker left unfreed on its own resource fail cleanly when it exits', () => {
    const run = runChild('worker-leaves-buffers');
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
    const run = runChild('exits-with-a-buffer');
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('done');
  });

  // node-addon-api throws a C++ exception when asked to throw into a terminating environment;
  // rmmjs's addons are built with NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS so it is dropped instead.
  it('a worker terminated while a callback runs ends cleanly', () => {
    const run = runChild('terminates-a-busy-worker');
    expect(run.stdout).toBe('terminated');
    expect(run.status).toBe(0);
  });
});
