// The paths the cli opens: a null byte is refused before anything is opened, and a log that is not a
// regular file (a FIFO, a device, a directory) is refused without waiting on it.
import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backend } from '@rmmjs/test-helpers';
import { main, readLog } from '@rmmjs/cli';
import { fixture, lines, rmmjs } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'rmmjs-cli-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Output into strings, for main() in this process. */
function capture() {
  const out = { stdout: '', stderr: '' };
  const stream = (key: 'stdout' | 'stderr') => ({ write: (text: string) => ((out[key] += text), true) });
  return { out, output: { stdout: stream('stdout'), stderr: stream('stderr') } as never };
}

async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  return promise.then(
    () => {
      throw new Error('it did not refuse');
    },
    (error: Error & { code?: string }) => error,
  );
}

/** `promise`, or a rejection after `ms` (an open that waits for a FIFO's writer). */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not finish in ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** A FIFO in the test's folder. */
function fifo(name: string): string {
  const path = join(dir, name);
  execFileSync('mkfifo', [path]);
  return path;
}

/** Opens the FIFO's other end and closes it: an open that waits for a writer returns. */
function release(path: string): void {
  try {
    closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // No reader waits on it.
  }
}

describe(`paths with a null byte (${backend()})`, () => {
  it("readLog refuses one with TypeError ERR_INVALID_ARG_VALUE naming 'file', as Node's fs does", async () => {
    const error = await rejection(readLog('log\0.csv'));
    expect(Object.getPrototypeOf(error)).toBe(TypeError.prototype);
    expect(error.code).toBe('ERR_INVALID_ARG_VALUE');
    expect(error.message).toBe(`The argument "file" must be a string without null bytes. Received 'log\\x00.csv'`);
  });

  it('rmmjs replay and rmmjs plot refuse one before they open anything (exit 2, the usage)', async () => {
    const log = fixture('rmm-cpp.csv');
    const output = join(dir, 'x\0.svg');
    for (const [argv, message] of [
      [['replay', 'log\0.csv'], "rmmjs replay: the log file: 'log\\x00.csv' has a null byte, which no path can have"],
      [['plot', 'log\0.csv'], "rmmjs plot: the log file: 'log\\x00.csv' has a null byte, which no path can have"],
      [
        ['plot', log, '-o', output],
        `rmmjs plot: --output: '${join(dir, 'x\\x00.svg')}' has a null byte, which no path can have`,
      ],
    ] as const) {
      const { out, output: streams } = capture();
      expect(await main([...argv], streams)).toBe(2);
      expect(lines(out.stderr)[0]).toBe(message);
      expect(out.stderr).toContain(`Usage: rmmjs ${argv[0]}`);
      expect(out.stdout).toBe('');
    }
    expect(existsSync(join(dir, 'x'))).toBe(false);
  });
});

describe(`a log that is not a regular file (${backend()})`, () => {
  it('readLog refuses a FIFO at once (ERR_INVALID_ARG_VALUE), a directory and a device too', async () => {
    const pipe = fifo('log.csv');
    try {
      const error = await within(rejection(readLog(pipe)), 10_000);
      expect(Object.getPrototypeOf(error)).toBe(TypeError.prototype);
      expect(error.code).toBe('ERR_INVALID_ARG_VALUE');
      expect(error.message).toBe(`The argument "file" must be a regular file. Received '${pipe}' (a FIFO)`);
    } finally {
      release(pipe);
    }
    const folder = join(dir, 'folder.csv');
    mkdirSync(folder);
    expect((await rejection(readLog(folder))).message).toBe(
      `The argument "file" must be a regular file. Received '${folder}' (a directory)`,
    );
    expect((await rejection(readLog('/dev/null'))).message).toBe(
      `The argument "file" must be a regular file. Received '/dev/null' (a device)`,
    );
  });

  it('rmmjs replay and rmmjs plot of a FIFO: exit 1 with why, at once', () => {
    const pipe = fifo('replayed.csv');
    try {
      for (const command of ['replay', 'plot']) {
        const run = rmmjs([command, pipe, ...(command === 'plot' ? ['-o', join(dir, 'out.svg')] : [])], {
          timeout: 20_000,
        });
        expect([run.status, run.stdout]).toEqual([1, '']);
        expect(run.stderr).toBe(
          `rmmjs ${command}: The argument "file" must be a regular file. Received '${pipe}' (a FIFO)\n`,
        );
      }
      expect(existsSync(join(dir, 'out.svg'))).toBe(false);
    } finally {
      release(pipe);
    }
  });
});
