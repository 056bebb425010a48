// What the interop suites share: the third-party DLPack peer (test/addon/dlpack_peer.c) and a Node
// child script (test/children/) that keeps running while the test talks to it (CUDA IPC needs two
// live processes).
import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface PeerTensor {
  id: number;
  major: number;
  minor: number;
  flags: number;
  deviceType: number;
  deviceId: number;
  shape: number[];
  strides: number[] | null;
  code: number;
  bits: number;
  lanes: number;
  byteOffset: number;
  data: bigint;
}

export interface PeerSpec {
  bytes: number;
  major?: number;
  minor?: number;
  deviceType?: number;
  deviceId?: number;
  shape?: number[];
  strides?: number[];
  code?: number;
  bits?: number;
  lanes?: number;
  byteOffset?: number;
  nullData?: 1;
  noDeleter?: 1;
}

export interface DLPackPeer {
  produce(spec: PeerSpec): object;
  deleted(): number;
  deleterThreads(): number;
  consume(capsule: object): PeerTensor;
  readByte(id: number, offset: number): number;
  release(id: number): void;
  releaseOnThread(id: number): void;
}

/** The path of the peer's addon (for a child process to load it too). */
export const peerPath = fileURLToPath(
  new URL('../build/test-addons/rmmjs_dlpack_peer/build/Release/rmmjs_dlpack_peer.node', import.meta.url),
);

export const peer = createRequire(import.meta.url)(peerPath) as DLPackPeer;

/** What the peer writes at byte i of what it produces. */
export const peerByte = (i: number) => (i * 7 + 3) & 255;

let sockets = 0;
/** A fresh Unix socket path. */
export const socketPath = () => join(tmpdir(), `rmmjs-interop-${process.pid}-${sockets++}.sock`);

/** A process that talks in JSON lines on stdin and stdout while the test goes on. */
export function lineProcess(command: string, args: string[], env: Record<string, string | undefined> = {}) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (data) => (stderr += data));
  const pending: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let buffered = '';
  child.stdout.on('data', (data) => {
    buffered += data;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      const waiter = waiting.shift();
      if (waiter) waiter(line);
      else pending.push(line);
    }
  });
  const exited = new Promise<{ status: number | null; stderr: string }>((resolve) =>
    child.on('exit', (status) => resolve({ status, stderr })),
  );
  const next = async (): Promise<any> => {
    const line =
      pending.shift() ?? (await Promise.race([new Promise<string>((r) => waiting.push(r)), exited.then(() => '')]));
    if (line === '') throw new Error(`the child process ended: ${stderr}`);
    return JSON.parse(line);
  };
  const send = (value: unknown) => child.stdin.write(`${JSON.stringify(value)}\n`);
  return {
    /** The child's next JSON line. */
    next,
    send,
    /** Sends a command and returns the answer; an answer with `error` throws it. */
    ask: async (value: unknown): Promise<any> => {
      send(value);
      const answer = await next();
      if (answer?.error) throw new Error(answer.error);
      return answer;
    },
    /** Ends its input (a child that reads until the end then exits). */
    end: () => child.stdin.end(),
    exited,
    kill: () => child.kill('SIGKILL'),
  };
}

/**
 * A process that listens on the Unix socket at `path` and never accepts, with its backlog full (this
 * process holds connections until the kernel refuses one): a connect() there cannot complete.
 * `close()` ends it all.
 */
export async function neverAccepting(path: string) {
  const listener = startChild('listens-without-accepting', [path]);
  const fillers: Socket[] = [];
  const close = async () => {
    for (const filler of fillers) filler.destroy();
    listener.kill();
    await listener.exited;
    rmSync(path, { force: true });
  };
  try {
    if ((await listener.next()).listening !== true) throw new Error('the listener did not listen');
    for (let full = false; !full;) {
      if (fillers.length === 100) throw new Error('100 connections and the backlog is not full');
      const filler = new Socket();
      fillers.push(filler);
      full = await new Promise<boolean>((connected) =>
        filler.connect(path, () => connected(false)).once('error', () => connected(true)),
      );
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { close };
}

/** The child script children/<name>.js, talking in JSON lines while the test goes on. */
export const startChild = (name: string, args: string[] = []) =>
  lineProcess(process.execPath, [fileURLToPath(new URL(`./children/${name}.js`, import.meta.url)), ...args]);

/** python3 with the helper (python/rmmjs_ipc.py) on its path, if there is one. */
export const python = (() => {
  const found = spawnSync('python3', ['-c', 'import ctypes, socket, fcntl; print(hasattr(socket, "send_fds"))'], {
    encoding: 'utf8',
  });
  return found.status === 0 && found.stdout.trim() === 'True' ? 'python3' : undefined;
})();

/** The Python peer (test/python/peer.py), or undefined without python3. */
export const startPython = () =>
  lineProcess(python as string, [fileURLToPath(new URL('./python/peer.py', import.meta.url))]);
