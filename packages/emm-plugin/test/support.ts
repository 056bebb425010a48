import { setCurrentDeviceResource, type DeviceMemoryResource } from '@rmmjs/core';
import { RMMExternalMemoryManager } from '@rmmjs/emm-plugin';
import { TrackingResourceAdaptor } from '@rmmjs/tracking';
import {
  disposeAfterEach,
  fakeCuda,
  onFake,
  restoreCurrentDeviceResourceAfterEach,
  runInProcess,
  type ProcessRun,
} from '@rmmjs/test-helpers';
import { afterEach } from 'vitest';

/**
 * The fixtures of a suite: the resource current before it (restored after each test), disposal
 * after each test, a manager reset after each test, and `tracked()`, which makes a
 * TrackingResourceAdaptor over that resource current.
 */
export function fixtures() {
  const base = restoreCurrentDeviceResourceAfterEach();
  const keep = disposeAfterEach();
  const managers: RMMExternalMemoryManager[] = [];
  afterEach(() => {
    for (const manager of managers.splice(0)) manager.reset();
  });
  return {
    base,
    keep,
    manager: (options?: { device?: number }) => {
      const manager = new RMMExternalMemoryManager(options);
      managers.push(manager);
      return manager;
    },
    tracked: (upstream: DeviceMemoryResource = base) => {
      const tracking = keep(new TrackingResourceAdaptor(upstream));
      setCurrentDeviceResource(tracking);
      return tracking;
    },
  };
}

/** What the fake driver holds now, less what it held at `since()` (fake backend only). */
export function fakeDelta() {
  const take = () => fakeCuda.stats();
  let before = onFake() ? take() : undefined;
  return {
    since: () => {
      if (onFake()) before = take();
    },
    now: () => {
      const now = take();
      return {
        allocations: now.liveAllocations - before!.liveAllocations,
        registrations: now.liveRegistrations - before!.liveRegistrations,
        calls: (symbol: string) => now.calls[symbol] - before!.calls[symbol],
      };
    },
  };
}

/** The child script test/children/<name>.js in a fresh `node --expose-gc`, with `args` as its arguments. */
export function runWithGc(name: string, args: string[] = []): ProcessRun {
  return runInProcess(new URL(`./children/${name}.js`, import.meta.url), { nodeArgs: ['--expose-gc'], args });
}
