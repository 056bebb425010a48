// The Python helper (python/rmmjs_ipc.py) against rmmjs, through the CUDA driver only (ctypes): the
// same driver as this process (the fake one in CI), no CuPy or PyTorch. Skipped without python3.
// The CuPy and PyTorch halves run on a GPU in tooling/scripts/ipc-proof.mjs.
import { CudaAsyncMemoryResource, CudaMemoryResource, DeviceBuffer } from '@rmmjs/core';
import { exportIpcHandle, openIpcHandle, receiveIpcPool, sendIpcPool, type IpcHandle } from '@rmmjs/interop';
import { PoolMemoryResource } from '@rmmjs/pool';
import { expectBytes, pattern, thrown, withCuda } from '@rmmjs/test-helpers';
import { spawnSync } from 'node:child_process';
import { closeSync, constants, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { neverAccepting, python, socketPath, startPython } from './support.js';

describe.runIf(python !== undefined)('the Python helper', () => {
  it("turns PyTorch's storage._share_cuda_() fields into an rmmjs handle (the versioned and the raw form)", async () => {
    const peer = startPython();
    const bytes = '5a'.repeat(64);
    const uuid = 'GPU-00000000-1111-2222-3333-444444444444';
    const versioned = await peer.ask({ cmd: 'torch', device: 0, data: `0263${bytes}`, size: 1000, offset: 512, uuid });
    expect(versioned.handle).toMatchObject({
      version: 1,
      kind: 'memory',
      handle: bytes,
      offset: 512,
      size: 1000,
      deviceUuid: uuid,
    });
    const raw = await peer.ask({ cmd: 'torch', device: 0, data: bytes, size: 64, offset: 0, uuid });
    expect(raw.handle.handle).toBe(bytes);
    await expect(peer.ask({ cmd: 'torch', device: 0, data: `0265${bytes}`, size: 1, offset: 0, uuid })).rejects.toThrow(
      'ValueError: a PyTorch expandable segment cannot be shared with CUDA IPC handles',
    );
    peer.end();
    expect((await peer.exited).status).toBe(0);
  });

  describe.runIf(withCuda())('with the driver', () => {
    it('opens an rmmjs handle at its offset, reads and writes; the exporter cannot free meanwhile', async () => {
      const pool = new PoolMemoryResource(new CudaMemoryResource(), { initialPoolSize: 2 ** 20 });
      const pad = new DeviceBuffer({ size: 768, mr: pool });
      const buffer = new DeviceBuffer({ data: pattern(1000, 31), mr: pool });
      const handle = exportIpcHandle(buffer);
      expect(handle.offset).toBe(768);
      const peer = startPython();
      const opened = await peer.ask({ cmd: 'open', handle });
      expect(opened.bytes).toEqual([...pattern(1000, 31)]);
      await peer.ask({ cmd: 'write', data: [1, 2, 3] });
      expect(thrown(() => buffer.free()).code).toBe('ERR_RMM_LOGIC'); // the Python view holds the lease
      expectBytes(buffer.toBytes().subarray(0, 4), [1, 2, 3, pattern(1000, 31)[3]]);
      await peer.ask({ cmd: 'close' });
      buffer.free();
      pad.free();
      pool[Symbol.dispose]();
      peer.end();
      expect((await peer.exited).status).toBe(0);
    });

    it('refuses a handle whose lease names a FIFO (ValueError), without blocking in open()', async () => {
      const buffer = new DeviceBuffer({ size: 256, mr: new CudaMemoryResource() });
      const exported = exportIpcHandle(buffer);
      const fifo = join(tmpdir(), `rmmjs-python-${process.pid}.fifo`);
      expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
      const fd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK); // no writer: open(O_RDONLY) would wait
      const peer = startPython();
      try {
        for (const [path, text] of [
          [fifo, `the handle's lease path must be /proc/<pid>/fd/<fd>, got '${fifo}'`],
          [
            `/proc/${process.pid}/fd/${fd}`,
            `the handle's lease must name the exporter's lease file, and /proc/${process.pid}/fd/${fd} is a FIFO`,
          ],
        ]) {
          const handle = { ...exported, lease: { ...exported.lease!, path } };
          await expect(peer.ask({ cmd: 'open', handle })).rejects.toThrow(`ValueError: ${text}`);
        }
      } finally {
        peer.end();
        closeSync(fd);
        rmSync(fifo, { force: true });
      }
      expect((await peer.exited).status).toBe(0);
      buffer.free(); // no lease was taken
    });

    it('receive_pool keeps to its timeout when the sender never accepts (its backlog full): TimeoutError', async () => {
      const path = socketPath();
      const sender = await neverAccepting(path);
      const peer = startPython();
      try {
        // A blocking connect() waited until the sender ended, whatever the timeout.
        const outcome = await Promise.race([
          peer.ask({ cmd: 'open', handle: {}, path, timeout: 0.3 }).catch((error: Error) => error.message),
          new Promise((late) => setTimeout(() => late('still waiting after 10 s'), 10_000)),
        ]);
        expect(outcome).toBe(`TimeoutError: nothing was sent at ${path} within 0.3 s`);
      } finally {
        await sender.close();
        peer.end();
      }
      expect((await peer.exited).status).toBe(0);
    });

    it('receives an IPC pool that rmmjs sends, and opens its allocations', async () => {
      const mr = new CudaAsyncMemoryResource({ enableIpc: true });
      const buffer = new DeviceBuffer({ data: pattern(600, 32), mr });
      const handle = exportIpcHandle(buffer);
      const path = socketPath();
      const sent = sendIpcPool(mr, path);
      const peer = startPython();
      const opened = await peer.ask({ cmd: 'open', handle, path });
      await sent;
      expect(opened.bytes).toEqual([...pattern(600, 32)]);
      await peer.ask({ cmd: 'write', data: [200] });
      await peer.ask({ cmd: 'close' });
      expect(buffer.toBytes()[0]).toBe(200);
      buffer.free();
      mr[Symbol.dispose]();
      peer.end();
      expect((await peer.exited).status).toBe(0);
    });

    it.each(['memory', 'pool'] as const)(
      'makes a handle of Python memory (%s) that rmmjs opens, reads and writes',
      async (kind) => {
        const peer = startPython();
        const path = socketPath();
        const data = [...pattern(333, 33)];
        const { handle } = (await peer.ask({ cmd: 'export', kind, offset: 512, data, path })) as { handle: IpcHandle };
        expect(handle).toMatchObject({ version: 1, kind, offset: 512, size: 333 });
        const pool = kind === 'pool' ? await receiveIpcPool(path) : undefined;
        const view = openIpcHandle(handle);
        expectBytes(view.toBytes(), data);
        view.copyFromHost(new Uint8Array([9, 8, 7]));
        view.free();
        pool?.close();
        expect((await peer.ask({ cmd: 'read' })).bytes.slice(0, 4)).toEqual([9, 8, 7, data[3]]);
        await peer.ask({ cmd: 'free' });
        peer.end();
        expect((await peer.exited).status).toBe(0);
      },
    );
  });
});
