// The C hooks (include/rmmjs/allocators.h), called as the array libraries call them: by a plain-C
// stand-in (@rmmjs/test-addon's allocatorHookConsumer) that takes them by name from the library
// file and by address, on this thread and on threads of its own.
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import {
  DeviceBuffer,
  Stream,
  cuda,
  getPerDeviceResource,
  setCurrentDeviceResource,
  setPerDeviceResource,
  type DeviceMemoryResource,
} from '@rmmjs/core';
import { native } from '@rmmjs/core/internal';
import { CallbackMemoryResource } from '@rmmjs/callback';
import { allocatorHookStatistics, allocatorHooks } from '@rmmjs/function-allocator';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { allocatorHookConsumer as consumer } from '@rmmjs/test-addon';
import { TrackingResourceAdaptor } from '@rmmjs/tracking';
import {
  disposeAfterEach,
  onFake,
  resolveFromPackage,
  restoreCurrentDeviceResourceAfterEach,
  runInProcess,
  runWorker,
} from '@rmmjs/test-helpers';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

const { cupy, torch, onnxruntime: ort } = allocatorHooks;
const child = (name: string) => new URL(`./children/${name}.js`, import.meta.url);

// One library's calls: allocate `size` on `device` and `stream`, free with what it knows.
interface Kind {
  name: 'cupy' | 'torch' | 'ort';
  alloc: bigint;
  free: bigint;
  allocate(size: number, device?: number, stream?: bigint): bigint;
  deallocate(ptr: bigint, size: number, device?: number, stream?: bigint): void;
}
const kinds: Kind[] = [
  {
    name: 'cupy',
    alloc: cupy.malloc.address,
    free: cupy.free.address,
    allocate: (size, device = 0, stream = 0n) => consumer.cupyMalloc(cupy.malloc.address, stream, size, device),
    deallocate: (ptr, _size, device = 0, stream = 0n) => consumer.cupyFree(cupy.free.address, stream, ptr, device),
  },
  {
    name: 'torch',
    alloc: torch.alloc.address,
    free: torch.free.address,
    allocate: (size, device = 0, stream = 0n) => consumer.torchAlloc(torch.alloc.address, size, device, stream),
    deallocate: (ptr, size, device = 0, stream = 0n) =>
      consumer.torchFree(torch.free.address, ptr, size, device, stream),
  },
  {
    name: 'ort',
    alloc: ort.alloc.address,
    free: ort.free.address,
    allocate: (size) => consumer.ortAlloc(ort.alloc.address, size),
    deallocate: (ptr) => consumer.ortFree(ort.free.address, ptr),
  },
];

// Runs fn with the debug logger off (the hooks log what they ignore; a test below reads the log).
function quietly(fn: () => void): void {
  const level = native.getLogLevel();
  native.setLogLevel(6);
  try {
    fn();
  } finally {
    native.setLogLevel(level);
  }
}

// A buffer with a copy of the `size` bytes at `ptr`: the copy fails unless that is live memory
// (the fake driver checks that a copy starting inside an allocation ends inside it).
function readBack(ptr: bigint, size: number): Uint8Array {
  const buffer = new DeviceBuffer({ size });
  buffer.copyFromDevice({ cudaArrayInterface: { data: [ptr, false], shape: [size], typestr: '|u1', version: 3 } });
  const bytes = buffer.toBytes();
  buffer.free();
  return bytes;
}

describe('allocatorHooks', () => {
  const base = restoreCurrentDeviceResourceAfterEach();
  const keep = disposeAfterEach();
  let before = allocatorHookStatistics();
  const delta = () => {
    const now = allocatorHookStatistics();
    return {
      live: now.liveAllocations - before.liveAllocations,
      liveBytes: now.liveBytes - before.liveBytes,
      total: now.totalAllocations - before.totalAllocations,
      failed: now.failedAllocations - before.failedAllocations,
      foreign: now.foreignFrees - before.foreignFrees,
    };
  };
  const tracked = (upstream: DeviceMemoryResource = base) => {
    const tracking = keep(new TrackingResourceAdaptor(upstream));
    setCurrentDeviceResource(tracking);
    return tracking;
  };

  beforeAll(() => {
    consumer.open(allocatorHooks.library);
  });
  afterEach(() => {
    // Every test gives back what it took through the hooks.
    expect(delta().live).toBe(0);
    before = allocatorHookStatistics();
  });

  it('live in librmmjs_allocators.so: the names a dlopen finds are the addresses given to JavaScript', () => {
    expect(isAbsolute(allocatorHooks.library)).toBe(true);
    expect(allocatorHooks.library.endsWith('/librmmjs_allocators.so')).toBe(true);
    expect(existsSync(allocatorHooks.library)).toBe(true);
    const found = consumer.open(allocatorHooks.library);
    const hooks = [cupy.malloc, cupy.free, torch.alloc, torch.free, ort.alloc, ort.free, ort.emptyCache];
    for (const { symbol, address } of hooks) {
      expect(address).toBeGreaterThan(0n);
      expect(found[symbol]).toBe(address);
    }
    expect(new Set(hooks.map((hook) => hook.address)).size).toBe(hooks.length);
    expect(Object.isFrozen(allocatorHooks) && Object.isFrozen(allocatorHooks.torch)).toBe(true);
  });

  it.each(kinds)('$name: allocates from the current device resource and frees to it', (kind) => {
    const tracking = tracked();
    const a = kind.allocate(1000);
    const b = kind.allocate(3000);
    for (const ptr of [a, b]) {
      expect(ptr).not.toBe(0n);
      expect(ptr % 256n).toBe(0n);
    }
    expect(b >= a + 1000n || a >= b + 3000n).toBe(true);
    expect(tracking.getAllocatedBytes()).toBe(4000);
    expect(tracking.getOutstandingAllocationCount()).toBe(2);
    expect(delta()).toEqual({ live: 2, liveBytes: 4000, total: 2, failed: 0, foreign: 0 });
    expect(readBack(b, 3000).length).toBe(3000);
    kind.deallocate(a, 1000);
    kind.deallocate(b, 3000);
    expect(tracking.getOutstandingAllocationCount()).toBe(0);
    expect(delta()).toEqual({ live: 0, liveBytes: 0, total: 2, failed: 0, foreign: 0 });
  });

  it.each(kinds)('$name: 0 bytes is NULL without an error, and freeing NULL does nothing', (kind) => {
    const tracking = tracked();
    expect(kind.allocate(0)).toBe(0n);
    kind.deallocate(0n, 0);
    expect(tracking.getOutstandingAllocationCount()).toBe(0);
    expect(delta()).toEqual({ live: 0, liveBytes: 0, total: 0, failed: 0, foreign: 0 });
  });

  it.each(kinds)('$name: a failed allocation is NULL, with the reason on the calling thread', (kind) => {
    const limited = keep(new LimitingResourceAdaptor(base, 4096));
    const tracking = tracked(limited);
    expect(kind.allocate(8192)).toBe(0n);
    expect(consumer.lastError()).toBe(
      `rmmjs_${kind.name === 'cupy' ? 'cupy_malloc' : `${kind.name}_alloc`}: Exceeded memory limit (failed to allocate 8.000000 KiB)`,
    );
    expect(tracking.getOutstandingAllocationCount()).toBe(0);
    expect(limited.getAllocatedBytes()).toBe(0);
    expect(delta()).toEqual({ live: 0, liveBytes: 0, total: 0, failed: 1, foreign: 0 });
  });

  it.each(kinds)('$name: frees to the resource that allocated, after the current one changed', (kind) => {
    const first = tracked();
    const ptr = kind.allocate(512);
    const second = tracked();
    kind.deallocate(ptr, 512);
    expect(first.getOutstandingAllocationCount()).toBe(0);
    expect(second.getOutstandingAllocationCount()).toBe(0);
    expect(delta().foreign).toBe(0);
  });

  it.each(kinds)('$name: a free of memory the hooks did not hand out changes nothing', (kind) => {
    const tracking = tracked();
    const buffer = new DeviceBuffer({ size: 256 });
    quietly(() => kind.deallocate(buffer.ptr, 256));
    expect(tracking.getOutstandingAllocationCount()).toBe(1);
    expect(readBack(buffer.ptr, 256).length).toBe(256);
    buffer.free();
    const ptr = kind.allocate(256);
    kind.deallocate(ptr, 256);
    quietly(() => {
      kind.deallocate(ptr, 256); // a double free
      kind.deallocate(ptr + 16n, 240); // inside memory it handed out
    });
    expect(tracking.getOutstandingAllocationCount()).toBe(0);
    expect(delta()).toEqual({ live: 0, liveBytes: 0, total: 1, failed: 0, foreign: 3 });
  });

  it('torch: frees what was allocated when the free names another size', () => {
    const tracking = tracked();
    const ptr = consumer.torchAlloc(torch.alloc.address, 1000, 0, 0n);
    quietly(() => consumer.torchFree(torch.free.address, ptr, 10, 0, 0n));
    expect(tracking.getOutstandingAllocationCount()).toBe(0);
    expect(delta().liveBytes).toBe(0);
  });

  it('cupy and torch allocate and free on the stream given; ort on the legacy default stream', () => {
    const seen: string[] = [];
    const callbacks = keep(
      new CallbackMemoryResource(
        (nbytes, stream) => {
          seen.push(`allocate ${nbytes} on ${stream.handle}`);
          return base.allocate(nbytes, stream);
        },
        (ptr, nbytes, stream) => {
          seen.push(`deallocate ${nbytes} on ${stream.handle}`);
          base.deallocate(ptr, nbytes, stream);
        },
      ),
    );
    setCurrentDeviceResource(callbacks);
    const stream = keep(new Stream());
    const [cupyKind, torchKind, ortKind] = kinds;
    cupyKind.deallocate(cupyKind.allocate(100, 0, stream.handle), 100, 0, stream.handle);
    torchKind.deallocate(torchKind.allocate(200, 0, stream.handle), 200, 0, stream.handle);
    ortKind.deallocate(ortKind.allocate(300), 300);
    expect(seen).toEqual([
      `allocate 100 on ${stream.handle}`,
      `deallocate 100 on ${stream.handle}`,
      `allocate 200 on ${stream.handle}`,
      `deallocate 200 on ${stream.handle}`,
      'allocate 300 on 0',
      'deallocate 300 on 0',
    ]);
  });

  it('ort: empty_cache keeps everything as it is', () => {
    const tracking = tracked();
    const ptr = consumer.ortAlloc(ort.alloc.address, 700);
    consumer.ortEmptyCache(ort.emptyCache.address);
    expect(tracking.getAllocatedBytes()).toBe(700);
    expect(readBack(ptr, 700).length).toBe(700);
    consumer.ortFree(ort.free.address, ptr);
  });

  it.each(['cupy', 'torch'] as const)('%s: a device that does not exist is NULL with the reason', (name) => {
    const kind = kinds.find((k) => k.name === name)!;
    expect(kind.allocate(100, 99)).toBe(0n);
    expect(consumer.lastError()).toMatch(/Invalid device 99/);
    expect(kind.allocate(100, -1)).toBe(0n);
    expect(consumer.lastError()).toMatch(/Invalid device -1/);
    expect(delta().failed).toBe(2);
  });

  it.runIf(onFake())('route to the resource of the device they are given (ort: the current device)', () => {
    const device1 = getPerDeviceResource(1);
    const tracking1 = keep(new TrackingResourceAdaptor(device1));
    setPerDeviceResource(1, tracking1);
    const tracking0 = tracked();
    try {
      const [cupyKind, torchKind, ortKind] = kinds;
      const onOne = [cupyKind.allocate(1000, 1), torchKind.allocate(2000, 1)];
      expect(tracking1.getAllocatedBytes()).toBe(3000);
      cuda.setDevice(1);
      const ortOnOne = ortKind.allocate(4000);
      cuda.setDevice(0);
      const ortOnZero = ortKind.allocate(500);
      expect(tracking1.getAllocatedBytes()).toBe(7000);
      expect(tracking0.getAllocatedBytes()).toBe(500);
      // Freed with the device they were allocated on, whatever is current now.
      cupyKind.deallocate(onOne[0], 1000, 1);
      torchKind.deallocate(onOne[1], 2000, 1);
      ortKind.deallocate(ortOnOne, 4000);
      ortKind.deallocate(ortOnZero, 500);
      expect(tracking1.getOutstandingAllocationCount()).toBe(0);
      expect(tracking0.getOutstandingAllocationCount()).toBe(0);
    } finally {
      cuda.setDevice(0);
      setPerDeviceResource(1, device1);
    }
  });

  it.each(kinds)('$name: works from native threads at once', (kind) => {
    const tracking = tracked();
    const stream = kind.name === 'ort' ? 0n : keep(new Stream()).handle;
    const failures = consumer.onThreads(kind.name, kind.alloc, kind.free, 4, 400, 1000, 0, stream);
    expect(failures).toBe(0);
    expect(tracking.getOutstandingAllocationCount()).toBe(0);
    expect(delta()).toEqual({ live: 0, liveBytes: 0, total: 1600, failed: 0, foreign: 0 });
  });

  it('on a native thread, a resource that calls JavaScript refuses, and nothing is lost', () => {
    const callbacks = keep(
      new CallbackMemoryResource(
        (nbytes, stream) => base.allocate(nbytes, stream),
        (ptr, nbytes, stream) => base.deallocate(ptr, nbytes, stream),
      ),
    );
    setCurrentDeviceResource(callbacks);
    expect(consumer.onThreads('torch', torch.alloc.address, torch.free.address, 2, 10, 256, 0, 0n)).toBe(20);
    expect(delta()).toEqual({ live: 0, liveBytes: 0, total: 0, failed: 20, foreign: 0 });
  });

  it('are the same hooks in a worker that imports the package', async () => {
    const tracking = tracked();
    const [library, address] = await runWorker(new URL('./workers/hooks.js', import.meta.url));
    expect(library).toBe(allocatorHooks.library);
    expect(address).toBe(torch.alloc.address);
    const ptr = kinds[1].allocate(64);
    expect(tracking.getAllocatedBytes()).toBe(64);
    kinds[1].deallocate(ptr, 64);
  });

  it('log a free they ignore to the debug log', () => {
    const run = runInProcess(child('logs-an-ignored-free'), { debugLog: true });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const [count, ptr] = run.stdout.split(' ');
    expect(count).toBe('1');
    expect(run.log).toContain(
      `rmmjs_torch_free: ${ptr} was not allocated by rmmjs's allocator hooks, or was freed already: ignored`,
    );
  });

  it('before the package is imported, allocate nothing and say why', () => {
    const library = resolveFromPackage('@rmmjs/function-allocator').replace(
      /dist\/index\.js$/,
      'build/librmmjs_allocators.so',
    );
    const run = runInProcess(child('calls-before-import'), { args: [library] });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual([
      0,
      "rmmjs's allocator hooks are not initialised: import @rmmjs/function-allocator first",
    ]);
  });
});
