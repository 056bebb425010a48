// CUDA IPC between two live processes (this one and a child: the fake driver maps the very bytes,
// see tooling/fake-cuda's README), and every bad input, in host mode too.
import {
  CudaAsyncMemoryResource,
  CudaError,
  CudaMemoryResource,
  DeviceBuffer,
  ManagedMemoryResource,
  PinnedHostMemoryResource,
  RMMError,
  cuda,
} from '@rmmjs/core';
import {
  exportIpcHandle,
  IpcPool,
  openIpcHandle,
  openIpcMappings,
  receiveIpcPool,
  sendIpcPool,
  type IpcHandle,
} from '@rmmjs/interop';
import { PoolMemoryResource } from '@rmmjs/pool';
import { expectBytes, onFake, onHost, pattern, rejected, runInProcess, thrown, withCuda } from '@rmmjs/test-helpers';
import { spawnSync } from 'node:child_process';
import { closeSync, constants, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { neverAccepting, socketPath, startChild } from './support.js';

const made: Disposable[] = [];
const keep = <T extends Disposable>(item: T): T => {
  made.push(item);
  return item;
};
afterEach(() => {
  for (const item of made.splice(0).reverse()) item[Symbol.dispose]();
});

// A well-formed handle (of no memory: the fake driver and CUDA refuse its bytes).
const sample = (): IpcHandle => ({
  version: 1,
  kind: 'memory',
  handle: '00'.repeat(64),
  offset: 0,
  size: 256,
  deviceUuid: 'GPU-66616b65-6375-6461-0000-000000000000',
});

// Runs the child script children/<name>.js with `args`; returns what it prints.
function inChild(name: string, args: string[], env: Record<string, string> = {}) {
  const run = runInProcess(new URL(`./children/${name}.js`, import.meta.url), { args, env });
  expect(run.stderr).toBe('');
  return run.stdout;
}

describe('bad handles and arguments (every backend)', () => {
  it.each([
    ['not an object', 'x', TypeError, 'ERR_INVALID_ARG_TYPE', 'The "handle" argument must be an IpcHandle object'],
    [
      'another version',
      { version: 2 },
      TypeError,
      'ERR_INVALID_ARG_VALUE',
      'The property "handle.version" must be 1, got 2',
    ],
    ['another kind', { kind: 'file' }, TypeError, 'ERR_INVALID_ARG_VALUE', "must be 'memory' or 'pool', got file"],
    [
      'short handle bytes',
      { handle: 'ab'.repeat(63) },
      TypeError,
      'ERR_INVALID_ARG_VALUE',
      'must be 128 hexadecimal digits',
    ],
    [
      'handle bytes that are not hex',
      { handle: 'zz'.repeat(64) },
      TypeError,
      'ERR_INVALID_ARG_VALUE',
      '"handle.handle"',
    ],
    ['a negative offset', { offset: -1 }, RangeError, 'ERR_OUT_OF_RANGE', '"handle.offset"'],
    ['a size that is no number', { size: '256' }, TypeError, 'ERR_INVALID_ARG_TYPE', '"handle.size"'],
    ['no bytes', { size: 0 }, RangeError, 'ERR_OUT_OF_RANGE', '"handle.size"'],
    ['a device that is no UUID', { deviceUuid: '0' }, TypeError, 'ERR_INVALID_ARG_VALUE', '"handle.deviceUuid"'],
    ['a pool handle without its pool', { kind: 'pool' }, TypeError, 'ERR_INVALID_ARG_VALUE', '"handle.pool"'],
    ['a malformed lease', { lease: { path: 1 } }, TypeError, 'ERR_INVALID_ARG_VALUE', '"handle.lease"'],
  ])('openIpcHandle refuses %s', (_, change, Class, code, text) => {
    const handle = typeof change === 'string' ? change : { ...sample(), ...change };
    const error = thrown(() => openIpcHandle(handle as IpcHandle));
    expect(error).toBeInstanceOf(Class);
    expect(error.code).toBe(code);
    expect(error.message).toContain(text);
  });

  it('exportIpcHandle refuses what is not a DeviceBuffer, and a freed one', () => {
    expect(thrown(() => exportIpcHandle({} as DeviceBuffer)).code).toBe('ERR_INVALID_ARG_TYPE');
    const live = new DeviceBuffer({ size: 10 });
    const proxied = thrown(() => exportIpcHandle(new Proxy(live, {})));
    expect(proxied).toBeInstanceOf(TypeError);
    expect(proxied.code).toBe('ERR_INVALID_ARG_TYPE'); // not V8's TypeError of a private field
    live.free();
    const buffer = new DeviceBuffer({ size: 10 });
    buffer.free();
    expect(thrown(() => exportIpcHandle(buffer)).code).toBe('ERR_RMM_DISPOSED');
  });

  it('sendIpcPool and receiveIpcPool refuse bad pools, paths and timeouts', async () => {
    expect((await rejected(sendIpcPool({} as never, '/tmp/x'))).code).toBe('ERR_INVALID_ARG_TYPE');
    const fakePool = { poolHandle: () => 0n, device: 0 } as never;
    expect((await rejected(sendIpcPool(fakePool, 5 as never))).code).toBe('ERR_INVALID_ARG_TYPE');
    // Something that only looks like a pool, or a Proxy of one, never reaches the driver.
    const lookalike = { poolHandle: () => 4096n, device: 0 } as never;
    expect((await rejected(sendIpcPool(lookalike, '/tmp/x', { timeout: 10 }))).code).toBe('ERR_INVALID_ARG_TYPE');
    const long = await rejected(receiveIpcPool(`/tmp/${'x'.repeat(110)}`));
    expect(long.code).toBe('ERR_INVALID_ARG_VALUE');
    expect(long.message).toContain('must be a file system path of 1 to 107 bytes, got 115 bytes');
    expect((await rejected(receiveIpcPool(''))).code).toBe('ERR_INVALID_ARG_VALUE');
    const withNul = await rejected(receiveIpcPool('/tmp/a\0b')); // sendIpcPool checks its path the same way
    expect(withNul).toBeInstanceOf(TypeError);
    expect(withNul.code).toBe('ERR_INVALID_ARG_VALUE');
    expect(withNul.message).toBe(
      'The argument "socketPath" must be a file system path without null bytes. Received \'/tmp/a\\x00b\'',
    );
    expect((await rejected(receiveIpcPool('/tmp/x', { timeout: -1 }))).code).toBe('ERR_OUT_OF_RANGE');
  });

  it('IpcPool is made by receiveIpcPool only: new IpcPool() is ERR_INVALID_ARG_TYPE, whatever it is given', () => {
    // (One made directly could close the import of another IpcPool's id.)
    const construct = IpcPool as unknown as new (...args: unknown[]) => IpcPool;
    for (const args of [[], ['pool-1', 0, 'GPU-x'], [Symbol('receiveIpcPool'), 'pool-1', 0, 'GPU-x']]) {
      const error = thrown(() => new construct(...args));
      expect(Object.getPrototypeOf(error)).toBe(TypeError.prototype);
      expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
      expect(error.message).toBe('IpcPool cannot be constructed directly: receiveIpcPool makes it');
    }
  });

  it.runIf(onHost())('needs CUDA: host mode is ERR_CUDA_DRIVER_NOT_FOUND', async () => {
    const buffer = new DeviceBuffer({ size: 64 });
    for (const error of [
      thrown(() => exportIpcHandle(buffer)),
      thrown(() => openIpcHandle(sample())),
      await rejected(receiveIpcPool('/tmp/rmmjs-none.sock', { timeout: 10 })),
    ]) {
      expect(error).toBeInstanceOf(CudaError);
      expect(error.code).toBe('ERR_CUDA_DRIVER_NOT_FOUND');
    }
    buffer.free();
  });
});

describe.runIf(withCuda())('exportIpcHandle', () => {
  it('names the allocation and the offset: plain JSON, the device by UUID, a lease', () => {
    const buffer = new DeviceBuffer({ size: 1000, mr: keep(new CudaMemoryResource()) });
    const handle = exportIpcHandle(buffer);
    expect(JSON.parse(JSON.stringify(handle))).toEqual(handle);
    expect(handle).toMatchObject({ version: 1, kind: 'memory', offset: 0, size: 1000 });
    expect(handle.handle).toMatch(/^[0-9a-f]{128}$/);
    expect(handle.deviceUuid).toMatch(/^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(handle.process).toMatch(/^[0-9a-f]{32}$/);
    expect(handle.lease?.path).toMatch(new RegExp(`^/proc/${process.pid}/fd/\\d+$`));
    expect(handle.lease?.file).toMatch(/^\d+:\d+$/);
    // The same buffer again: the same handle and lease.
    expect(exportIpcHandle(buffer)).toEqual(handle);
    buffer.free();
  });

  it('shares a sub-allocation as its allocation plus an offset: buffers of one pool chunk share the handle', () => {
    const pool = keep(new PoolMemoryResource(keep(new CudaMemoryResource()), { initialPoolSize: 2 ** 20 }));
    const a = new DeviceBuffer({ size: 4096, mr: pool });
    const b = new DeviceBuffer({ size: 1000, mr: pool });
    const ha = exportIpcHandle(a);
    const hb = exportIpcHandle(b);
    expect(hb.handle).toBe(ha.handle);
    expect(hb.offset - ha.offset).toBe(Number(b.ptr - a.ptr));
    expect(hb.offset).toBeGreaterThan(0);
    expect(hb.lease?.slot).not.toBe(ha.lease?.slot);
    a.free();
    b.free();
  });

  it.each([
    ['managed memory', () => new ManagedMemoryResource(), 'is CUDA managed memory, which CUDA IPC cannot share'],
    ['pinned host memory', () => new PinnedHostMemoryResource(), 'is pinned host memory, which CUDA IPC cannot share'],
    [
      'a pool without IPC',
      () => new CudaAsyncMemoryResource(),
      'comes from a CUDA memory pool created without IPC (the default pool, or a CudaAsyncMemoryResource without { enableIpc: true }), which CUDA IPC cannot share',
    ],
  ])('refuses %s', (_, make, text) => {
    const mr = keep(make());
    const buffer = new DeviceBuffer({ size: 512, mr });
    const error = thrown(() => exportIpcHandle(buffer));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe('ERR_INVALID_ARG_VALUE');
    expect(error.message).toBe(`The argument "buffer" ${text}`);
    buffer.free(); // no guard was left behind
  });

  it('refuses an empty buffer', () => {
    const buffer = new DeviceBuffer({ size: 0 });
    expect(thrown(() => exportIpcHandle(buffer)).message).toBe(
      'The argument "buffer" is empty: it has no memory to share',
    );
    buffer.free();
  });

  it('opening it in the exporting process is CUDA_ERROR_INVALID_CONTEXT, as the driver says', () => {
    const buffer = new DeviceBuffer({ size: 256, mr: keep(new CudaMemoryResource()) });
    const handle = exportIpcHandle(buffer);
    const { process: _exporter, ...anonymous } = handle; // the driver itself refuses it too
    for (const h of [handle, anonymous]) {
      const error = thrown(() => openIpcHandle(h));
      expect(error).toBeInstanceOf(CudaError);
      expect(error.code).toBe('ERR_CUDA');
      expect(error.cudaErrorName).toBe('CUDA_ERROR_INVALID_CONTEXT');
      expect(error.message).toContain('CUDA opens an IPC handle only in another process');
    }
    expect(openIpcMappings()).toBe(0);
    buffer.free();
  });
});

describe.runIf(withCuda())('openIpcHandle in another process', () => {
  it("reads and writes the exporter's memory; free() closes the view, never the memory", () => {
    const pool = keep(new PoolMemoryResource(keep(new CudaMemoryResource()), { initialPoolSize: 2 ** 20 }));
    const pad = new DeviceBuffer({ size: 3000, mr: pool });
    const buffer = new DeviceBuffer({ data: pattern(5000, 11), mr: pool });
    const handle = exportIpcHandle(buffer);
    expect(handle.offset).toBeGreaterThan(0);
    const out = inChild('opens-and-writes', [JSON.stringify(handle)]);
    const device = buffer.device;
    expect(out).toBe(`5000 true 1 ${device}\n${pattern(5000, 11)[0]} ${pattern(5000, 11)[4999]}\n0 ERR_RMM_DISPOSED`);
    expectBytes(buffer.toBytes().subarray(0, 4), [1, 2, 3, pattern(5000, 11)[3]]);
    buffer.free(); // the importer let go
    pad.free();
  });

  it('opens one mapping for many buffers of one allocation (cached by handle), each at its offset', () => {
    const pool = keep(new PoolMemoryResource(keep(new CudaMemoryResource()), { initialPoolSize: 2 ** 20 }));
    const buffers = [0, 1, 2].map((i) => new DeviceBuffer({ data: pattern(700, 20 + i), mr: pool }));
    const handles = buffers.map((b) => exportIpcHandle(b));
    const out = inChild('opens-many', [JSON.stringify(handles)]);
    expect(out).toBe(
      `1 ${buffers[2].ptr - buffers[0].ptr} ${[0, 1, 2].map((i) => pattern(700, 20 + i)[699]).join(',')}\n0`,
    );
    buffers.forEach((b) => b.free());
  });

  it('refuses an offset and size past the shared allocation, and opens nothing', () => {
    const buffer = new DeviceBuffer({ size: 1000, mr: keep(new CudaMemoryResource()) });
    const handle = { ...exportIpcHandle(buffer), offset: 16, size: 2 ** 40 };
    const { refusal, mappings } = JSON.parse(inChild('refuses-to-open', [JSON.stringify(handle)]));
    expect(refusal).toMatchObject({ name: 'RangeError', code: 'ERR_OUT_OF_RANGE' });
    expect(refusal.message).toMatch(
      /^The handle's offset \(16\) and size \(1099511627776\) run past the end of the shared allocation \(\d+ bytes\)$/,
    );
    expect(mappings).toBe(0);
    buffer.free();
  });

  it("refuses bytes that are no handle, with the driver's error", () => {
    const buffer = new DeviceBuffer({ size: 256, mr: keep(new CudaMemoryResource()) });
    const { deviceUuid } = exportIpcHandle(buffer);
    const { refusal, mappings } = JSON.parse(
      inChild('refuses-to-open', [JSON.stringify({ ...sample(), deviceUuid, handle: '42'.repeat(64) })]),
    );
    // The fake driver's answer; the driver's own may be another CUDA error.
    expect(refusal).toMatchObject({ name: 'CudaError', code: 'ERR_CUDA' });
    expect(refusal.cudaErrorName).toMatch(onFake() ? /^CUDA_ERROR_INVALID_VALUE$/ : /^CUDA_ERROR_\w+$/);
    expect(mappings).toBe(0);
    buffer.free();
  });

  it.runIf(onFake())('refuses a handle from a device this process does not have', () => {
    cuda.setDevice(1);
    const onOne = new DeviceBuffer({ size: 256, mr: keep(new CudaMemoryResource()) });
    cuda.setDevice(0);
    const handle = exportIpcHandle(onOne);
    expect(handle.deviceUuid).toBe('GPU-66616b65-6375-6461-0000-000000000001');
    const { refusal } = JSON.parse(
      inChild('refuses-to-open', [JSON.stringify(handle)], { RMMJS_FAKE_CUDA_DEVICES: '1' }),
    );
    expect(refusal).toMatchObject({
      code: 'ERR_INVALID_ARG_VALUE',
      message:
        'The argument "handle" is memory of device GPU-66616b65-6375-6461-0000-000000000001, which is not a device of this process',
    });
    onOne.free();
  });
});

describe.runIf(withCuda())("openIpcHandle and the handle's lease", () => {
  // The lease names the exporter's lease file as /proc/<pid>/fd/<fd>; a handle is data from a peer,
  // and opening what its lease names must never block (a FIFO without a writer would, for ever).
  const fifo = join(tmpdir(), `rmmjs-interop-${process.pid}.fifo`);
  const held: number[] = [];
  afterEach(() => {
    for (const fd of held.splice(0)) closeSync(fd);
    rmSync(fifo, { force: true });
  });
  const openHere = (path: string, flags: number) => {
    const fd = openSync(path, flags);
    held.push(fd);
    return `/proc/${process.pid}/fd/${fd}`;
  };
  const makeFifo = () => {
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    return fifo;
  };
  const leaseFile = "must name the exporter's lease file";

  it.each([
    ['a FIFO outside /proc', () => makeFifo(), 'must be /proc/<pid>/fd/<fd>'],
    [
      'a FIFO (no writer) through /proc',
      () => openHere(makeFifo(), constants.O_RDONLY | constants.O_NONBLOCK),
      leaseFile,
    ],
    ['another regular file', () => openHere(fileURLToPath(import.meta.url), constants.O_RDONLY), leaseFile],
    ['a directory', () => openHere(tmpdir(), constants.O_RDONLY | constants.O_DIRECTORY), leaseFile],
    ['a path with a NUL', () => `/proc/${process.pid}/fd/0\0`, 'must be /proc/<pid>/fd/<fd>'],
  ])('refuses a lease that names %s (ERR_INVALID_ARG_VALUE), at once and opening nothing', (_, path, text) => {
    const buffer = new DeviceBuffer({ size: 256, mr: keep(new CudaMemoryResource()) });
    const exported = exportIpcHandle(buffer);
    const handle = { ...exported, lease: { ...exported.lease!, path: path() } };
    const run = runInProcess(new URL('./children/refuses-to-open.js', import.meta.url), {
      args: [JSON.stringify(handle)],
      timeout: 20_000,
    });
    expect(run.signal).toBe(null); // it used to block in open() for ever
    expect(run.stderr).toBe('');
    const { refusal, mappings } = JSON.parse(run.stdout);
    expect(refusal).toMatchObject({ name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' });
    expect(refusal.message).toContain('"handle.lease.path"');
    expect(refusal.message).toContain(text);
    expect(mappings).toBe(0);
    buffer.free(); // no importer holds a lease
  });

  it('a lease file that does not exist here (another PID namespace) is no lease: the handle opens', () => {
    const buffer = new DeviceBuffer({ data: pattern(256, 4), mr: keep(new CudaMemoryResource()) });
    const exported = exportIpcHandle(buffer);
    const handle = { ...exported, lease: { ...exported.lease!, path: '/proc/2147483647/fd/3' } };
    const out = inChild('opens-and-writes', [JSON.stringify(handle)]);
    expect(out.split('\n')[0]).toBe(`256 true 1 ${buffer.device}`);
    buffer.free();
  });
});

describe.runIf(withCuda())('the exporter frees after its importers', () => {
  it('free() of a buffer that another process has open is ERR_RMM_LOGIC, until that process lets go', async () => {
    const buffer = new DeviceBuffer({ data: pattern(2000, 5), mr: keep(new CudaMemoryResource()) });
    const child = startChild('holds-a-view');
    child.send(exportIpcHandle(buffer));
    expect(await child.next()).toEqual({ size: 2000, last: pattern(2000, 5)[1999] });
    const error = thrown(() => buffer.free());
    expect(error).toBeInstanceOf(RMMError);
    expect(error.code).toBe('ERR_RMM_LOGIC');
    expect(error.message).toBe(
      'DeviceBuffer: another process still has this memory open through its CUDA IPC handle (exportIpcHandle): that process must free its view (from openIpcHandle) before this buffer is freed or moved',
    );
    expect(buffer.freed).toBe(false);
    expect(thrown(() => buffer.resize(100_000)).code).toBe('ERR_RMM_LOGIC'); // a move would free it too
    expectBytes(buffer.toBytes(), pattern(2000, 5));
    child.send('close');
    expect(await child.next()).toEqual({ closed: 0 });
    buffer.free();
    child.send('exit');
    expect((await child.exited).status).toBe(0);
  });

  it('a process that ends without freeing lets go all the same', async () => {
    const buffer = new DeviceBuffer({ size: 256, mr: keep(new CudaMemoryResource()) });
    const child = startChild('holds-a-view');
    child.send(exportIpcHandle(buffer));
    expect(await child.next()).toMatchObject({ size: 256 });
    expect(thrown(() => buffer.free()).code).toBe('ERR_RMM_LOGIC');
    child.kill();
    await child.exited;
    buffer.free();
  });
});

describe.runIf(withCuda())('memory pools with IPC (CudaAsyncMemoryResource({ enableIpc: true }))', () => {
  it('receiveIpcPool keeps to its timeout when the sender never accepts (its backlog full): ETIMEDOUT', async () => {
    const path = socketPath();
    const sender = await neverAccepting(path);
    try {
      // A blocking connect() waited on a thread of the pool until the sender ended, whatever the timeout.
      const started = Date.now();
      const outcome = await Promise.race([
        rejected(receiveIpcPool(path, { timeout: 300 })),
        new Promise((late) => setTimeout(() => late('still waiting after 10 s'), 10_000)),
      ]);
      expect(outcome).toBeInstanceOf(Error);
      expect((outcome as { code: string }).code).toBe('ETIMEDOUT');
      expect((outcome as Error).message).toBe(`receiveIpcPool: nothing was sent at ${path} within 300 ms`);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await sender.close();
    }
  });

  it('shares the pool over a Unix socket, then each allocation: the other process reads and writes', async () => {
    const mr = keep(new CudaAsyncMemoryResource({ enableIpc: true }));
    const buffer = new DeviceBuffer({ data: pattern(3000, 8), mr });
    const handle = exportIpcHandle(buffer);
    expect(handle).toMatchObject({ kind: 'pool', offset: 0, size: 3000 });
    expect(handle.pool).toMatch(/^[0-9a-f]{32}:[0-9a-f]+$/);
    const path = socketPath();
    const sent = sendIpcPool(mr, path, { timeout: 30_000 });
    const out = inChild('receives-a-pool', [path, JSON.stringify(handle)]);
    await sent;
    expect(out).toBe(
      `ERR_RMM_LOGIC true\ntrue ${buffer.device}\n${pattern(3000, 8)[0]} ${pattern(3000, 8)[2999]}\nERR_RMM_LOGIC true\n0`,
    );
    expectBytes(buffer.toBytes().subarray(0, 3), [7, 7, pattern(3000, 8)[2]]);
    buffer.free();
  });

  it('a sub-allocation of an IPC pool is its allocation plus an offset', async () => {
    const mr = keep(new CudaAsyncMemoryResource({ enableIpc: true }));
    const pool = keep(new PoolMemoryResource(mr, { initialPoolSize: 2 ** 20 }));
    const pad = new DeviceBuffer({ size: 1024, mr: pool });
    const buffer = new DeviceBuffer({ data: pattern(100, 9), mr: pool });
    const handle = exportIpcHandle(buffer);
    expect(handle).toMatchObject({ kind: 'pool', offset: 1024 });
    const path = socketPath();
    const sent = sendIpcPool(mr, path);
    const out = inChild('receives-a-pool', [path, JSON.stringify(handle)]);
    await sent;
    expect(out.split('\n')[2]).toBe(`${pattern(100, 9)[0]} ${pattern(100, 9)[99]}`);
    buffer.free();
    pad.free();
  });

  it('sendIpcPool refuses a pool without IPC, and gives up after its timeout (ETIMEDOUT), as receiveIpcPool does', async () => {
    const plain = keep(new CudaAsyncMemoryResource());
    const refused = await rejected(sendIpcPool(plain, socketPath()));
    expect(refused.code).toBe('ERR_INVALID_ARG_VALUE');
    expect(refused.message).toBe(
      'The argument "pool" is a CUDA memory pool created without IPC: create it with new CudaAsyncMemoryResource({ enableIpc: true })',
    );
    const path = socketPath();
    const lonely = await rejected(
      sendIpcPool(keep(new CudaAsyncMemoryResource({ enableIpc: true })), path, { timeout: 50 }),
    );
    expect(lonely.code).toBe('ETIMEDOUT');
    expect(lonely.message).toBe(`sendIpcPool: no process connected to ${path} within 50 ms`);
    const nobody = await rejected(receiveIpcPool(path, { timeout: 50 }));
    expect(nobody.code).toBe('ETIMEDOUT');
    expect(nobody.message).toBe(`receiveIpcPool: nothing was sent at ${path} within 50 ms`);
  });
});
