#!/usr/bin/env node
// CUDA IPC with software nobody here wrote: Node (rmmjs) and a Python process (CuPy, PyTorch), both
// ways, through CUDA IPC memory handles and through an IPC memory pool. Prints one PASS or FAIL line
// per direction and exits 1 if one failed; without a GPU, or without python3 that has CuPy and
// PyTorch with CUDA, prints "skipped: <why>" and exits 0.
//
//   node tooling/scripts/ipc-proof.mjs          (after `pnpm build`; on the GPU machine)
//
// The Python side is ipc_proof_child.py, which uses packages/interop/python/rmmjs_ipc.py.
import { spawn, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CudaAsyncMemoryResource, CudaMemoryResource, DeviceBuffer, cuda } from '@rmmjs/core';
import { exportIpcHandle, openIpcHandle, receiveIpcPool, sendIpcPool } from '@rmmjs/interop';
import { PoolMemoryResource } from '@rmmjs/pool';
import { parseCommandLine } from './arguments.mjs';

parseCommandLine('ipc-proof', {});

const MiB = 2 ** 20;
const SIZE = 4 * MiB + 123; // not a round number: the views must get sizes and offsets right
const child = fileURLToPath(new URL('./ipc_proof_child.py', import.meta.url));

function skip(why) {
  console.log(`skipped: ${why}`);
  process.exit(0);
}

if (!cuda.isAvailable()) skip(`no GPU (${cuda.hostModeReason()})`);
const probe = spawnSync(
  'python3',
  [
    '-c',
    'import cupy, torch; assert torch.cuda.is_available(), "torch has no CUDA"; print(cupy.__version__, torch.__version__)',
  ],
  { encoding: 'utf8' },
);
if (probe.error) skip('no python3');
if (probe.status !== 0)
  skip(`python3 cannot use CuPy and PyTorch with CUDA (${probe.stderr.trim().split('\n').pop()})`);
console.log(`rmmjs ipc-proof on ${cuda.deviceName(0)}: CuPy ${probe.stdout.trim().replace(' ', ', PyTorch ')}`);

// The bytes each side writes and checks (ipc_proof_child.py computes the same with NumPy).
function pattern(length, seed) {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 31 + (i >>> 9) * 7 + seed * 101) & 255;
  return bytes;
}

function firstDifference(actual, expected) {
  if (actual.length !== expected.length) return `${actual.length} bytes instead of ${expected.length}`;
  for (let i = 0; i < actual.length; i++) {
    if (actual[i] !== expected[i]) return `byte ${i} is ${actual[i]}, expected ${expected[i]}`;
  }
  return null;
}

function expectBytes(actual, expected, what) {
  const difference = firstDifference(actual, expected);
  if (difference) throw new Error(`${what}: ${difference}`);
}

// The Python process: JSON commands in, JSON answers out, one per line.
const python = spawn('python3', [child], { stdio: ['pipe', 'pipe', 'inherit'] });
const answers = [];
let waiting;
let buffered = '';
python.stdout.on('data', (data) => {
  buffered += data;
  for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
    const line = buffered.slice(0, end);
    buffered = buffered.slice(end + 1);
    const resolve = waiting;
    waiting = undefined;
    if (resolve) resolve(line);
    else answers.push(line);
  }
});
const ended = new Promise((resolve) => python.on('exit', resolve));
async function ask(command, timeoutMs = 120_000) {
  python.stdin.write(`${JSON.stringify(command)}\n`);
  const line =
    answers.shift() ??
    (await Promise.race([
      new Promise((resolve) => (waiting = resolve)),
      ended.then((code) => Promise.reject(new Error(`the Python process ended (${code})`))),
      new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer to ${command.cmd}`)), timeoutMs).unref()),
    ]));
  const answer = JSON.parse(line);
  if (answer.error) throw new Error(`Python: ${answer.error}`);
  return answer;
}

let failures = 0;
async function direction(name, run) {
  try {
    const detail = await run();
    console.log(`PASS ${name}${detail ? ` (${detail})` : ''}`);
  } catch (error) {
    failures++;
    console.log(`FAIL ${name}: ${error.message}`);
    await ask({ cmd: 'reset' }).catch(() => {});
  }
}

let sockets = 0;
const socketPath = () => join(tmpdir(), `rmmjs-ipc-proof-${process.pid}-${sockets++}.sock`);

// Node's buffer, opened in Python: CuPy checks and writes, PyTorch (through DLPack from CuPy)
// checks and writes the last byte; while Python holds it, the buffer's free() must refuse.
async function nodeToPython(buffer, handle, poolPath) {
  buffer.copyFromHost(pattern(SIZE, 1));
  const answer = await ask({ cmd: 'open', handle, poolPath, expect: 1, write: 2 });
  let refused = false;
  try {
    buffer.free();
  } catch (error) {
    refused = error.code === 'ERR_RMM_LOGIC';
  }
  if (!refused) throw new Error('the exporter could free the buffer while Python had it open');
  await ask({ cmd: 'close' });
  const expected = pattern(SIZE, 2);
  expected[SIZE - 1] = 0x5a;
  expectBytes(buffer.toBytes(), expected, 'what Node sees after Python wrote');
  buffer.free();
  return `offset ${handle.offset}; Python: ${answer.seen}`;
}

// Python's memory, opened in Node: Node checks and writes, Python checks.
async function pythonToNode(kind) {
  const poolPath = kind === 'pool' ? socketPath() : undefined;
  const { handle } = await ask({ cmd: 'export', kind, size: SIZE, seed: 3, poolPath });
  const pool = poolPath ? await receiveIpcPool(poolPath, { timeout: 60_000 }) : undefined;
  const view = openIpcHandle(handle);
  try {
    expectBytes(view.toBytes(), pattern(SIZE, 3), `what Node reads of ${kind}`);
    view.copyFromHost(pattern(SIZE, 4));
  } finally {
    view.free();
    pool?.close();
  }
  await ask({ cmd: 'check', seed: 4 });
  return `offset ${handle.offset}`;
}

await direction(
  'Node -> Python: CUDA IPC handle of a PoolMemoryResource sub-allocation, CuPy then PyTorch',
  async () => {
    const upstream = new CudaMemoryResource();
    const pool = new PoolMemoryResource(upstream, { initialPoolSize: 64 * MiB });
    const pad = new DeviceBuffer({ size: MiB + 512, mr: pool });
    const buffer = new DeviceBuffer({ size: SIZE, mr: pool });
    const handle = exportIpcHandle(buffer);
    if (handle.kind !== 'memory' || handle.offset === 0)
      throw new Error(`expected a sub-allocation: ${JSON.stringify(handle)}`);
    try {
      return await nodeToPython(buffer, handle);
    } finally {
      pad.free();
      pool[Symbol.dispose]();
      upstream[Symbol.dispose]();
    }
  },
);

await direction('PyTorch -> Node: a CUDA tensor shared with storage._share_cuda_()', () => pythonToNode('torch'));
await direction("CuPy -> Node: an array of CuPy's memory pool", () => pythonToNode('cupy'));

await direction(
  'Node -> Python: an IPC memory pool (CudaAsyncMemoryResource({ enableIpc: true }), sub-allocated), CuPy then PyTorch',
  async () => {
    const mr = new CudaAsyncMemoryResource({ enableIpc: true });
    const pool = new PoolMemoryResource(mr, { initialPoolSize: 16 * MiB });
    const pad = new DeviceBuffer({ size: 4096, mr: pool });
    const buffer = new DeviceBuffer({ size: SIZE, mr: pool });
    const handle = exportIpcHandle(buffer);
    if (handle.kind !== 'pool' || handle.offset === 0)
      throw new Error(`expected a pool sub-allocation: ${JSON.stringify(handle)}`);
    const poolPath = socketPath();
    const sent = sendIpcPool(mr, poolPath, { timeout: 60_000 });
    try {
      return await nodeToPython(buffer, handle, poolPath);
    } finally {
      await sent.catch(() => {});
      pad.free();
      pool[Symbol.dispose]();
      mr[Symbol.dispose]();
    }
  },
);

await direction(
  'Python -> Node: an IPC memory pool created in Python (cuMemPoolCreate), its allocation at an offset',
  () => pythonToNode('pool'),
);

python.stdin.end();
await ended;
console.log(failures === 0 ? 'ipc-proof: all directions passed' : `ipc-proof: ${failures} direction(s) failed`);
process.exit(failures === 0 ? 0 : 1);
