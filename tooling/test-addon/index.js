// rmmjs's test-only addon (never a dependency of a published package): native work over any
// resource through the C ABI, for the tests and the benchmarks. Types: index.d.ts.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { UpstreamResourceAdaptor } from '@rmmjs/core';
import { loadAddon, registerResourceClass, resourceHandle } from '@rmmjs/core/addon';

const addon = loadAddon(import.meta.url, '.', '@rmmjs/test-addon');

export function nativeThreadsWorkload(mr, options) {
  const { threads, iterations, minBytes, maxBytes, maxLive, seed = 1, check = false } = options;
  return addon.nativeThreadsWorkload(
    resourceHandle(mr, 'mr'),
    threads,
    iterations,
    minBytes,
    maxBytes,
    maxLive,
    seed,
    check,
  );
}

export function allocateOnNativeThread(mr, nbytes) {
  return addon.allocateOnNativeThread(resourceHandle(mr, 'mr'), nbytes);
}

export function allocateOnThreadPool(mr, nbytes) {
  return addon.allocateOnThreadPool(resourceHandle(mr, 'mr'), nbytes);
}

/**
 * An allocate+free of nbytes on a new native thread, which then lets go of mr and exits, held at
 * the first shared lock of the exit hooks its allocation left while during() runs (needs
 * holdAtExitLibrary preloaded): [held, status, message, during()'s result].
 */
export function exitHeld(mr, nbytes, during) {
  return addon.exitHeld(resourceHandle(mr, 'mr'), nbytes, during);
}

export function abiPairNs(mr, nbytes, iterations) {
  return addon.abiPairNs(resourceHandle(mr, 'mr'), nbytes, iterations);
}

export function abiRandomNs(mr, sizes, frees) {
  return addon.abiRandomNs(resourceHandle(mr, 'mr'), sizes, frees);
}

export function abiThreadsOpsPerSecond(mr, threads, nbytes, seconds) {
  return addon.abiThreadsOpsPerSecond(resourceHandle(mr, 'mr'), threads, nbytes, seconds);
}

export const { driverPairNs, driverPoolPairNs, forgeCoreApi } = addon;

/** The addon's `init`, for the ABI tests: (coreApi, makeError, holdJsException). */
export const initAddon = addon.init;

/**
 * A plain-C stand-in for the array libraries that take @rmmjs/function-allocator's C hooks (CuPy,
 * PyTorch, ONNX Runtime): it calls them by address, from this thread or threads of its own.
 */
export const allocatorHookConsumer = createRequire(import.meta.url)(
  './build/test-addons/rmmjs_allocator_hook_consumer/build/Release/rmmjs_allocator_hook_consumer.node',
);

/** The library a child process preloads (LD_PRELOAD) for hostOomStep: an operator new that fails when told to. */
export const failNewLibrary = fileURLToPath(new URL('./build/test-addons/librmmjs_fail_new.so', import.meta.url));

/** The library a child process preloads (LD_PRELOAD) for exitHeld: holds an exiting thread at a shared lock. */
export const holdAtExitLibrary = fileURLToPath(
  new URL('./build/test-addons/librmmjs_hold_at_exit.so', import.meta.url),
);

/**
 * One fixed sequence of allocations and frees on mr through the C ABI while the k-th operator
 * new of this thread fails (needs failNewLibrary preloaded): { fired, failedAllocations,
 * failedFrees, refreesFailed, overlaps, unexpected }.
 */
export function hostOomStep(mr, k) {
  return addon.hostOomStep(resourceHandle(mr, 'mr'), k);
}

export function pointerTableProbes(pointers) {
  return addon.pointerTableProbes(pointers);
}

export function bestFitIndexCheck(options) {
  return addon.bestFitIndexCheck(options);
}

export function spareListCheck() {
  return addon.spareListCheck();
}

export function biasedLockRun(options) {
  return addon.biasedLockRun(options);
}

const floor = addon.napiFloor();

/**
 * ns per pair of Node-API calls shaped like allocate(mr, nbytes) and deallocate(mr, ptr, nbytes)
 * that do nothing: the floor under any allocate+free pair made from JavaScript.
 */
export function napiFloorPairNs(nbytes, iterations) {
  const { allocate, deallocate, handle } = floor;
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) deallocate(handle, allocate(handle, nbytes), nbytes);
  return Number(process.hrtime.bigint() - start) / iterations;
}

/**
 * The blocks waiting in the threads' caches of a PoolMemoryResource (@rmmjs/pool); with `enable`,
 * the caches are turned on first (they come on by themselves once threads meet on the pool's lock).
 */
export function poolThreadCaches(pool, enable = false) {
  return addon.poolThreadCaches(resourceHandle(pool, 'pool'), enable);
}

/** cuStreamQuery of `handle` on this thread: 0 when its work has finished, 600 (not ready) while it runs. */
export function streamQuery(handle) {
  return addon.streamQuery(handle);
}

/** Samples this thread's instruction pointer every `intervalUs` microseconds (Linux x86-64). */
export function pcSamplerStart(intervalUs) {
  addon.pcSamplerStart(intervalUs);
}

/** Stops sampling; writes the process's mappings and the samples to `path`; returns their count. */
export function pcSamplerStop(path) {
  return addon.pcSamplerStop(path);
}

/**
 * The suites' meter: an adaptor over `upstream` that forwards every call and counts the bytes
 * outstanding, each allocation rounded up to 256 (as LimitingResourceAdaptor counts them).
 */
export class CountingResourceAdaptor extends UpstreamResourceAdaptor {
  constructor(upstream) {
    super(addon.createCountingAdaptor(resourceHandle(upstream, 'upstream')));
  }

  getAllocatedBytes() {
    return addon.countedBytes(resourceHandle(this, 'this'));
  }
}
registerResourceClass('CountingResourceAdaptor', CountingResourceAdaptor);
