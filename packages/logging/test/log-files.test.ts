// What a log may be written to (a LoggingResourceAdaptor's file, enableLogging's, the debug log's):
// as in RMM any path, but never one whose open() or writes could block the threads that log: a
// FIFO (a named pipe, or a standard stream that is a pipe) or a socket is refused at once. Each case
// runs in a child process, so that a hang is a failure rather than a stuck suite.
import { spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCurrentDeviceResource } from '@rmmjs/core';
import { LoggingResourceAdaptor, enableLogging, getLogFilenames, logFileNameForDevice } from '@rmmjs/logging';
import { runInProcess, thrown } from '@rmmjs/test-helpers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

let dir: string;
const held: number[] = [];
const servers: Server[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rmmjs-log-files-'));
});
afterEach(async () => {
  for (const fd of held.splice(0)) closeSync(fd);
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
  rmSync(dir, { recursive: true, force: true });
});

function fifo(name: string, { reader = false } = {}): string {
  const path = join(dir, name);
  expect(spawnSync('mkfifo', [path]).status).toBe(0);
  // A reader that never reads: open() would not wait, the writes would once the pipe is full.
  if (reader) held.push(openSync(path, constants.O_RDONLY | constants.O_NONBLOCK));
  return path;
}

async function socket(name: string): Promise<string> {
  const path = join(dir, name);
  const server = createServer();
  servers.push(server);
  await new Promise<void>((listening) => server.listen(path, listening));
  return path;
}

const FIFO =
  'it is a FIFO (a named pipe, or a standard stream that is a pipe), whose reader could block the threads that ' +
  'log: log to a regular file, a terminal or /dev/null';
const SOCKET = 'it is a socket: log to a regular file, a terminal or /dev/null';

function opensALog(how: 'adaptor' | 'enable', path: string) {
  const run = runInProcess(new URL('./children/opens-a-log.js', import.meta.url), {
    args: [how, path],
    timeout: 20_000,
  });
  expect(run.signal).toBe(null); // open() used to wait for a reader for ever
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout);
}

describe("a LoggingResourceAdaptor's file", () => {
  it.each([
    ['a FIFO without a reader', () => fifo('log.csv'), FIFO],
    ['a FIFO whose reader never reads', () => fifo('log.csv', { reader: true }), FIFO],
    ['a Unix socket', () => socket('log.sock'), SOCKET],
  ])('is refused when it is %s: RMMError ERR_RMM_LOGIC, at once', async (_, make, why) => {
    const path = await make();
    expect(opensALog('adaptor', path)).toEqual({
      refusal: { name: 'RMMError', code: 'ERR_RMM_LOGIC', message: `Failed opening file ${path} for writing: ${why}` },
      same: true,
    });
  });

  it('may be a character device: /dev/null takes the log', () => {
    expect(opensALog('adaptor', '/dev/null')).toEqual({ logged: true });
  });

  it('a directory is what open() says', () => {
    expect(opensALog('adaptor', dir).refusal).toEqual({
      name: 'RMMError',
      code: 'ERR_RMM_LOGIC',
      message: `Failed opening file ${dir} for writing: Is a directory`,
    });
  });
});

describe("enableLogging's file", () => {
  it('is refused when it is a FIFO, and no device changes', () => {
    fifo('log.dev0.csv');
    const path = join(dir, 'log.dev0.csv');
    expect(opensALog('enable', join(dir, 'log.csv'))).toEqual({
      refusal: { name: 'RMMError', code: 'ERR_RMM_LOGIC', message: `Failed opening file ${path} for writing: ${FIFO}` },
      same: true,
    });
  });
});

describe('the debug log (RMM_DEBUG_LOG_FILE)', () => {
  const logsTo = (path: string) =>
    runInProcess(new URL('./children/logs-every-level.js', import.meta.url), {
      env: { RMM_DEBUG_LOG_FILE: path },
      timeout: 20_000,
    });

  it('a FIFO is refused: the log goes to stderr, with a line that says why', () => {
    const path = fifo('debug.log');
    const run = logsTo(path);
    expect(run.signal).toBe(null); // the first message used to wait in fopen() for a reader
    expect(run.status).toBe(0);
    const lines = run.stderr.split('\n');
    expect(lines[0]).toBe(`rmmjs: cannot open RMM_DEBUG_LOG_FILE ${path} (${FIFO}): the debug log goes to stderr`);
    expect(lines.slice(1, -1).map((line) => line.replace(/^.*\] /, ''))).toEqual(
      Array.from({ length: 7 }, (_, level) => `message ${level}`),
    );
  });

  it('a regular file and /dev/null take it', () => {
    const path = join(dir, 'debug.log');
    expect(logsTo(path)).toMatchObject({ status: 0, stderr: '' });
    expect(readFileSync(path, 'utf8').split('\n')).toHaveLength(8);
    expect(logsTo('/dev/null')).toMatchObject({ status: 0, stderr: '' });
  });
});

describe('a file name with a null byte', () => {
  // The file system would take the name up to the NUL, while getFileName() reported all of it.
  it.each([
    [
      'new LoggingResourceAdaptor',
      'options.logFileName',
      (name: string) => new LoggingResourceAdaptor(getCurrentDeviceResource(), { logFileName: name }),
    ],
    ['enableLogging', 'logFileName', (name: string) => enableLogging(name)],
    ['logFileNameForDevice', 'logFileName', (name: string) => logFileNameForDevice(name, 0)],
  ])('is refused by %s: TypeError ERR_INVALID_ARG_VALUE, and no file is made', (_, argument, call) => {
    const before = getCurrentDeviceResource();
    const name = join(dir, 'log.csv\0.txt');
    const error = thrown(() => call(name));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe('ERR_INVALID_ARG_VALUE');
    expect(error.message).toBe(
      `The ${argument.includes('.') ? 'property' : 'argument'} "${argument}" must be a file name without null bytes. ` +
        `Received '${join(dir, 'log.csv')}\\x00.txt'`,
    );
    expect(readdirSync(dir)).toEqual([]);
    expect(getCurrentDeviceResource()).toBe(before);
    expect(Object.values(getLogFilenames()).every((file) => file === null)).toBe(true);
  });
});
