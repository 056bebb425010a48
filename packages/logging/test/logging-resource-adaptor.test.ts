import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_STREAM,
  DeviceBuffer,
  LEGACY_DEFAULT_STREAM,
  OutOfMemoryError,
  PER_THREAD_DEFAULT_STREAM,
  RMMError,
  Stream,
  getCurrentDeviceResource,
  setCurrentDeviceResource,
} from '@rmmjs/core';
import { CallbackMemoryResource } from '@rmmjs/callback';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { LoggingResourceAdaptor } from '@rmmjs/logging';
import { thrown } from '@rmmjs/test-helpers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HEADER, type LogEvent, parseLog, replayProblems, rowPattern } from './csv.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rmmjs-logging-'));
  file = join(dir, 'log.csv');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const base = () => getCurrentDeviceResource();
const read = () => readFileSync(file, 'utf8');
const hex = (ptr: bigint) => `0x${ptr.toString(16)}`;
// The vitest worker runs the tests on its process's main thread, whose OS thread id is the pid.
const thread = process.pid;

function event(action: LogEvent['action'], pointer: bigint, size: number, stream = 0n) {
  return { thread, time: expect.stringMatching(/^\d{2}:\d{2}:\d{2}\.\d{6}$/), action, pointer, size, stream };
}

describe('LoggingResourceAdaptor', () => {
  it("writes RMM's header, then a row per allocation and free, in order", () => {
    const mr = new LoggingResourceAdaptor(base(), { logFileName: file });
    const stream = new Stream();
    const a = mr.allocate(1000);
    const b = mr.allocate(17, stream);
    const c = mr.allocate(300, LEGACY_DEFAULT_STREAM);
    const d = mr.allocate(20, PER_THREAD_DEFAULT_STREAM);
    mr.deallocate(b, 17, stream);
    mr.deallocate(a, 1000, DEFAULT_STREAM);
    mr.deallocate(c, 300, LEGACY_DEFAULT_STREAM);
    mr.deallocate(d, 20, PER_THREAD_DEFAULT_STREAM);
    mr.flush();
    const text = read();
    expect(text.split('\n')[0]).toBe(HEADER);
    expect(parseLog(text)).toEqual([
      event('allocate', a, 1000),
      event('allocate', b, 17, stream.handle),
      event('allocate', c, 300, 1n),
      event('allocate', d, 20, 2n),
      event('free', b, 17, stream.handle),
      event('free', a, 1000),
      event('free', c, 300, 1n),
      event('free', d, 20, 2n),
    ]);
    // Exactly RMM's row: "%t,%H:%M:%S.%f,allocate,%p,%zu,<stream in hex>"
    const rows = text.split('\n').slice(1, -1);
    expect(rows[0]).toMatch(new RegExp(`^${thread},\\d{2}:\\d{2}:\\d{2}\\.\\d{6},allocate,${hex(a)},1000,0$`));
    expect(rows[1].endsWith(`,allocate,${hex(b)},17,${stream.handle.toString(16)}`)).toBe(true);
    expect(rows.every((row) => rowPattern.test(row))).toBe(true);
    stream[Symbol.dispose]();
  });

  it('logs the allocations of DeviceBuffers made through it as the current resource', () => {
    const mr = new LoggingResourceAdaptor(base(), { logFileName: file });
    const previous = setCurrentDeviceResource(mr);
    try {
      expect(getCurrentDeviceResource()).toBe(mr);
      const buffer = new DeviceBuffer({ size: 5000 });
      const ptr = buffer.ptr;
      buffer.free();
      mr.flush();
      expect(parseLog(read())).toEqual([event('allocate', ptr, 5000), event('free', ptr, 5000)]);
    } finally {
      setCurrentDeviceResource(previous);
    }
  });

  it("a failed allocation is logged as 'allocate failure' and its error reaches the caller unchanged", () => {
    const limited = new LimitingResourceAdaptor(base(), 1024);
    const mr = new LoggingResourceAdaptor(limited, { logFileName: file });
    const direct = thrown(() => limited.allocate(4096));
    const error = thrown(() => mr.allocate(4096));
    expect(error).toBeInstanceOf(OutOfMemoryError);
    expect(error.code).toBe('ERR_RMM_OUT_OF_MEMORY');
    expect(error.message).toBe(direct.message);
    expect(error.message).toBe('Exceeded memory limit (failed to allocate 4.000000 KiB)');
    mr.flush();
    const text = read();
    expect(text.split('\n')[1]).toMatch(
      new RegExp(`^${thread},\\d{2}:\\d{2}:\\d{2}\\.\\d{6},allocate failure,\\(nil\\),4096,0$`),
    );
    expect(parseLog(text)).toEqual([event('allocate failure', 0n, 4096)]);
  });

  it('an error thrown by a JavaScript upstream is rethrown as the same object', () => {
    const boom = new Error('boom');
    const upstream = new CallbackMemoryResource(
      () => {
        throw boom;
      },
      () => {},
    );
    const mr = new LoggingResourceAdaptor(upstream, { logFileName: file });
    expect(thrown(() => mr.allocate(64))).toBe(boom);
    mr.flush();
    expect(parseLog(read())).toEqual([event('allocate failure', 0n, 64)]);
  });

  it('the free is written before the upstream frees (seen from the upstream, with autoFlush)', () => {
    const memory = base();
    const seen: string[] = [];
    const upstream = new CallbackMemoryResource(
      (nbytes) => memory.allocate(nbytes),
      (ptr, nbytes) => {
        seen.push(read().split('\n').at(-2)!);
        memory.deallocate(ptr, nbytes);
      },
    );
    const mr = new LoggingResourceAdaptor(upstream, { logFileName: file, autoFlush: true });
    const ptr = mr.allocate(100);
    expect(read().split('\n').at(-2)).toMatch(new RegExp(`,allocate,${hex(ptr)},100,0$`));
    mr.deallocate(ptr, 100);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(new RegExp(`^${thread},[\\d:.]+,free,${hex(ptr)},100,0$`));
  });

  it('writes the header at once, buffers rows until flush() unless autoFlush', () => {
    const buffered = new LoggingResourceAdaptor(base(), { logFileName: file });
    expect(read()).toBe(`${HEADER}\n`);
    buffered.deallocate(buffered.allocate(10), 10);
    expect(read()).toBe(`${HEADER}\n`);
    buffered.flush();
    expect(parseLog(read())).toHaveLength(2);

    const other = join(dir, 'auto.csv');
    const auto = new LoggingResourceAdaptor(base(), { logFileName: other, autoFlush: true });
    expect(readFileSync(other, 'utf8')).toBe(`${HEADER}\n`);
    const ptr = auto.allocate(10);
    expect(parseLog(readFileSync(other, 'utf8'))).toEqual([event('allocate', ptr, 10)]);
  });

  it('truncates the file it opens', () => {
    writeFileSync(file, 'rows of an earlier run\n'.repeat(100));
    new LoggingResourceAdaptor(base(), { logFileName: file });
    expect(read()).toBe(`${HEADER}\n`);
  });

  it('flushes and closes the file when its last user lets go', () => {
    const mr = new LoggingResourceAdaptor(base(), { logFileName: file });
    const buffer = new DeviceBuffer({ size: 64, mr });
    const ptr = buffer.ptr;
    mr[Symbol.dispose](); // the buffer still holds the adaptor
    expect(read()).toBe(`${HEADER}\n`);
    buffer.free(); // logged, then the adaptor goes: flushed
    expect(parseLog(read())).toEqual([event('allocate', ptr, 64), event('free', ptr, 64)]);
  });

  it('many rows: in order, whole, across buffer chunks', () => {
    const mr = new LoggingResourceAdaptor(base(), { logFileName: file });
    const sizes = Array.from({ length: 20_000 }, (_, i) => 1 + ((i * 7919) % 1000));
    const pointers = sizes.map((size) => mr.allocate(size));
    sizes.forEach((size, i) => mr.deallocate(pointers[i], size));
    mr.flush();
    const events = parseLog(read());
    expect(events).toHaveLength(40_000);
    const differing = events.filter((e, i) => {
      const at = i % 20_000;
      return e.action !== (i < 20_000 ? 'allocate' : 'free') || e.pointer !== pointers[at] || e.size !== sizes[at];
    });
    expect(differing).toEqual([]);
    expect(replayProblems(events)).toEqual([]);
  });

  it('pointers, sizes and streams of every length: as printf writes them', () => {
    const pointers = [0x100n, 0xf00n, 0x1000n, 0xabcdef00n, 0x100000000n, 0x7ffff7a3c100n, 0xffffffffffffff00n];
    const sizes = [1, 9, 10, 99, 100, 65535, 4294967295, 4294967296, 123456789012345, Number.MAX_SAFE_INTEGER];
    const streams = [0x3n, 0xfn, 0x10n, 0xdeadbeefn, 0x123456789n, 0xfedcba9876543210n, 0xffffffffffffffffn];
    let next = 0;
    const upstream = new CallbackMemoryResource(
      () => pointers[next++ % pointers.length],
      () => {},
    );
    const mr = new LoggingResourceAdaptor(upstream, { logFileName: file });
    const expected: string[] = [];
    for (let i = 0; i < 70; i++) {
      const size = sizes[i % sizes.length];
      const stream = Stream.fromHandle(streams[i % streams.length]);
      const ptr = mr.allocate(size, stream);
      mr.deallocate(ptr, size, stream);
      const fields = `${hex(ptr)},${size},${stream.handle.toString(16)}`;
      expected.push(`allocate,${fields}`, `free,${fields}`);
    }
    mr.flush();
    const rows = read().split('\n').slice(1, -1);
    expect(rows.map((row) => row.split(',').slice(2).join(','))).toEqual(expected);
    expect(rows.every((row) => row.startsWith(`${thread},`))).toBe(true);
  });

  it("the time is the local time of day of the event, to the microsecond (spdlog's %H:%M:%S.%f)", () => {
    const mr = new LoggingResourceAdaptor(base(), { logFileName: file });
    const before = new Date();
    mr.deallocate(mr.allocate(64), 64);
    const after = new Date();
    mr.flush();
    const micros = (date: Date) =>
      ((date.getHours() * 60 + date.getMinutes()) * 60 + date.getSeconds()) * 1e6 + date.getMilliseconds() * 1000;
    const times = parseLog(read()).map((e) => {
      const [hours, minutes, seconds] = e.time.split(':').map(Number);
      return Math.round(((hours * 60 + minutes) * 60 + seconds) * 1e6);
    });
    expect(times).toHaveLength(2);
    if (before.getDate() !== after.getDate()) return; // midnight passed: the times of day wrap
    // Date has milliseconds: the rows lie within [before, after + 1 ms), in order.
    for (const time of times) {
      expect(time).toBeGreaterThanOrEqual(micros(before));
      expect(time).toBeLessThan(micros(after) + 1000);
    }
    expect(times[1]).toBeGreaterThanOrEqual(times[0]);
  });

  it('an allocation of 0 bytes gives 0n and never reaches the adaptor: no row', () => {
    const mr = new LoggingResourceAdaptor(base(), { logFileName: file });
    expect(mr.allocate(0)).toBe(0n);
    mr.deallocate(0n, 0);
    mr.flush();
    expect(read()).toBe(`${HEADER}\n`);
  });

  it('names: getFileName() is absolute; the default is $RMM_LOG_FILE', () => {
    const saved = { cwd: process.cwd(), env: process.env.RMM_LOG_FILE };
    try {
      process.chdir(dir);
      expect(new LoggingResourceAdaptor(base(), { logFileName: 'relative.csv' }).getFileName()).toBe(
        join(dir, 'relative.csv'),
      );
      process.env.RMM_LOG_FILE = 'from-environment.csv';
      const mr = new LoggingResourceAdaptor(base());
      expect(mr.getFileName()).toBe(join(dir, 'from-environment.csv'));
      mr.flush();
      expect(readFileSync(join(dir, 'from-environment.csv'), 'utf8')).toBe(`${HEADER}\n`);
      expect(new LoggingResourceAdaptor(base(), { logFileName: file }).getFileName()).toBe(file);
    } finally {
      process.chdir(saved.cwd);
      if (saved.env === undefined) delete process.env.RMM_LOG_FILE;
      else process.env.RMM_LOG_FILE = saved.env;
    }
  });

  it('no name and no (or an empty) RMM_LOG_FILE -> TypeError ERR_INVALID_ARG_VALUE', () => {
    const saved = process.env.RMM_LOG_FILE;
    try {
      for (const value of [undefined, '']) {
        if (value === undefined) delete process.env.RMM_LOG_FILE;
        else process.env.RMM_LOG_FILE = value;
        for (const make of [() => new LoggingResourceAdaptor(base()), () => new LoggingResourceAdaptor(base(), {})]) {
          const error = thrown(make);
          expect(error).toBeInstanceOf(TypeError);
          expect(error.code).toBe('ERR_INVALID_ARG_VALUE');
          expect(error.message).toMatch(
            /^The property "options\.logFileName" must be given when RMM_LOG_FILE is not set/,
          );
        }
      }
    } finally {
      if (saved === undefined) delete process.env.RMM_LOG_FILE;
      else process.env.RMM_LOG_FILE = saved;
    }
  });

  it('bad arguments', () => {
    const codeOf = (fn: () => unknown) => thrown(fn).code;
    expect(codeOf(() => new LoggingResourceAdaptor({} as never, { logFileName: file }))).toBe('ERR_INVALID_ARG_TYPE');
    expect(codeOf(() => new LoggingResourceAdaptor(undefined as never, { logFileName: file }))).toBe(
      'ERR_INVALID_ARG_TYPE',
    );
    expect(codeOf(() => new LoggingResourceAdaptor(base(), { logFileName: 42 as never }))).toBe('ERR_INVALID_ARG_TYPE');
    expect(codeOf(() => new LoggingResourceAdaptor(base(), { logFileName: null as never }))).toBe(
      'ERR_INVALID_ARG_TYPE',
    );
    expect(codeOf(() => new LoggingResourceAdaptor(base(), { logFileName: '' }))).toBe('ERR_INVALID_ARG_VALUE');
    expect(codeOf(() => new LoggingResourceAdaptor(base(), { logFileName: file, autoFlush: 1 as never }))).toBe(
      'ERR_INVALID_ARG_TYPE',
    );
    expect(codeOf(() => new LoggingResourceAdaptor(base(), [] as never))).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => new LoggingResourceAdaptor(base(), { logFileName: 42 as never })).message).toBe(
      'The "options.logFileName" property must be of type string. Received type number (42)',
    );
    expect(thrown(() => new LoggingResourceAdaptor(base(), { logFileName: '' })).message).toBe(
      `The property "options.logFileName" must be a file name. Received ''`,
    );
    expect(thrown(() => new LoggingResourceAdaptor(base(), { logFileName: file, autoFlush: 1 as never })).message).toBe(
      'The "options.autoFlush" property must be of type boolean. Received type number (1)',
    );
    expect(codeOf(() => new LoggingResourceAdaptor(base(), 'log.csv' as never))).toBe('ERR_INVALID_ARG_TYPE');
    expect(existsSync(file)).toBe(false);
  });

  it('a file that cannot be opened -> RMMError ERR_RMM_LOGIC with the reason', () => {
    const missing = join(dir, 'no-such-directory', 'log.csv');
    const error = thrown(() => new LoggingResourceAdaptor(base(), { logFileName: missing }));
    expect(error).toBeInstanceOf(RMMError);
    expect(error.code).toBe('ERR_RMM_LOGIC');
    expect(error.message).toBe(`Failed opening file ${missing} for writing: No such file or directory`);
  });

  it('keeps its upstream alive and exposes it; a disposed upstream or adaptor is refused', () => {
    const upstream = new LimitingResourceAdaptor(base(), '1 MiB');
    const mr = new LoggingResourceAdaptor(upstream, { logFileName: file });
    expect(mr.upstreamMr).toBe(upstream);
    expect(mr.getUpstream()).toBe(upstream);
    upstream[Symbol.dispose]();
    const ptr = mr.allocate(100);
    mr.deallocate(ptr, 100);
    expect(thrown(() => new LoggingResourceAdaptor(upstream, { logFileName: file })).code).toBe('ERR_RMM_DISPOSED');
    mr[Symbol.dispose]();
    expect(thrown(() => mr.flush()).code).toBe('ERR_RMM_DISPOSED');
    expect(thrown(() => mr.getFileName()).code).toBe('ERR_RMM_DISPOSED');
    expect(parseLog(read())).toEqual([event('allocate', ptr, 100), event('free', ptr, 100)]);
  });
});

describe("RMM's log format (a replay tool reads both directions)", () => {
  const golden = readFileSync(new URL('./fixtures/rmm-log.csv', import.meta.url), 'utf8');

  it('a log written by RMM parses with the same reader, to the events it holds', () => {
    expect(parseLog(golden)).toEqual([
      {
        thread: 2418135,
        time: '14:03:27.123456',
        action: 'allocate',
        pointer: 0x7f1c2e000000n,
        size: 1000,
        stream: 0n,
      },
      {
        thread: 2418135,
        time: '14:03:27.123519',
        action: 'allocate',
        pointer: 0x7f1c2e000400n,
        size: 256,
        stream: 0x55d0c3a7e2b0n,
      },
      {
        thread: 2418142,
        time: '14:03:27.124001',
        action: 'allocate failure',
        pointer: 0n,
        size: 1099511627776,
        stream: 0n,
      },
      { thread: 2418142, time: '14:03:27.124377', action: 'free', pointer: 0x7f1c2e000000n, size: 1000, stream: 0n },
      {
        thread: 2418135,
        time: '14:03:27.130090',
        action: 'free',
        pointer: 0x7f1c2e000400n,
        size: 256,
        stream: 0x55d0c3a7e2b0n,
      },
    ]);
    expect(replayProblems(parseLog(golden))).toEqual([]);
  });

  it('rmmjs writes the same events in the same layout, byte for byte but for ids, times and addresses', () => {
    const stream = new Stream();
    const limited = new LimitingResourceAdaptor(base(), 2048);
    const mr = new LoggingResourceAdaptor(limited, { logFileName: file });
    const a = mr.allocate(1000);
    const b = mr.allocate(256, stream);
    thrown(() => mr.allocate(1099511627776));
    mr.deallocate(a, 1000);
    mr.deallocate(b, 256, stream);
    mr.flush();
    const ours = read();
    // Put RMM's ids, times, pointers and stream in ours: then the two files are identical.
    const goldenEvents = parseLog(golden);
    const substitutions = new Map<string, string>([
      [hex(a), '0x7f1c2e000000'],
      [hex(b), '0x7f1c2e000400'],
    ]);
    const rewritten = ours
      .split('\n')
      .map((row, i) => {
        if (i === 0 || row === '') return row;
        const fields = row.split(',');
        const golden = goldenEvents[i - 1];
        fields[0] = String(golden.thread);
        fields[1] = golden.time;
        fields[3] = substitutions.get(fields[3]) ?? fields[3];
        if (fields[5] === stream.handle.toString(16)) fields[5] = '55d0c3a7e2b0';
        return fields.join(',');
      })
      .join('\n');
    expect(rewritten).toBe(golden);
    stream[Symbol.dispose]();
  });
});
