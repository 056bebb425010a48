// Reading RMM's CSV allocation log: RMM's own logs (C++ and Python), rmmjs's, and every kind of bad row.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DeviceBuffer, getCurrentDeviceResource, Stream } from '@rmmjs/core';
import { LoggingResourceAdaptor } from '@rmmjs/logging';
import { thrown } from '@rmmjs/test-helpers';
import { Action, LogFormatError, parseLog, readLog, summarizeLog } from '@rmmjs/cli';
import { fixture } from './run-cli.js';

const HEADER = 'Thread,Time,Action,Pointer,Size,Stream';
const dir = mkdtempSync(join(tmpdir(), 'rmmjs-cli-parse-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('parseLog', () => {
  it("reads a log as RMM's C++ and Python loggers write it", () => {
    const log = parseLog(readFileSync(fixture('rmm-cpp.csv'), 'utf8'), 'rmm-cpp.csv');
    expect(log.events).toBe(11);
    expect([...log.action]).toEqual([0, 0, 0, 2, 1, 0, 1, 1, 0, 1, 0]);
    expect([...log.size]).toEqual([
      1000, 4096, 1048576, 1099511627776, 1000, 256, 4096, 1048576, 2000000, 2000000, 512,
    ]);
    expect(log.threads).toEqual(['140001', '140002', '140003']);
    expect([...log.thread]).toEqual([0, 1, 0, 2, 1, 2, 0, 2, 0, 1, 1]);
    // "0", "0x1" (the legacy default stream) and a stream of its own, as std::hex prints them.
    expect(log.streams).toEqual([0n, 1n, 0x55d0c3a7e2b0n]);
    expect([...log.stream]).toEqual([0, 1, 2, 0, 0, 2, 1, 2, 0, 0, 0]);
    // The log runs past midnight: microseconds since the first row keep counting.
    expect([...log.time]).toEqual([0, 500, 1250, 2000, 2500, 3000, 3500, 4000, 4500, 5000, 5500]);
    // Each free names its allocation's slot; a freed slot is reused; failures have none.
    expect([...log.slot]).toEqual([0, 1, 2, -1, 0, 0, 1, 2, 2, 2, 2]);
    expect(log.slots).toBe(3);
    expect([...log.line]).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect([log.allocations, log.frees, log.failures, log.peakBytes, log.largestAllocation]).toEqual([
      6, 4, 1, 2000256, 2000000,
    ]);
    expect(log.live).toEqual([
      { slot: 0, size: 256, stream: 2, line: 7 },
      { slot: 2, size: 512, stream: 0, line: 12 },
    ]);
    expect(log.action.buffer).toBeInstanceOf(SharedArrayBuffer);
  });

  it("reads @rmmjs/logging's golden log", () => {
    const golden = fileURLToPath(new URL('../../logging/test/fixtures/rmm-log.csv', import.meta.url));
    const log = parseLog(readFileSync(golden, 'utf8'));
    expect([log.events, log.allocations, log.frees, log.failures, log.peakBytes]).toEqual([5, 2, 2, 1, 1256]);
    expect(log.streams).toEqual([0n, 0x55d0c3a7e2b0n]);
    expect(log.live).toEqual([]);
  });

  it('reads what LoggingResourceAdaptor writes, from this thread and a stream', () => {
    const file = join(dir, 'written.csv');
    const logged = new LoggingResourceAdaptor(getCurrentDeviceResource(), { logFileName: file });
    const stream = new Stream();
    const a = new DeviceBuffer({ size: 1000, mr: logged });
    const b = new DeviceBuffer({ size: 3000, mr: logged, stream });
    a.free();
    b.free();
    logged.flush();
    const log = parseLog(readFileSync(file, 'utf8'), file);
    logged[Symbol.dispose]();
    expect([...log.action]).toEqual([Action.allocate, Action.allocate, Action.free, Action.free]);
    expect([...log.size]).toEqual([1000, 3000, 1000, 3000]);
    expect(log.streams).toEqual([0n, stream.handle]);
    expect(log.threads).toHaveLength(1);
    expect([log.peakBytes, log.live.length]).toEqual([4000, 0]);
    stream[Symbol.dispose]();
  });

  it('takes rows of threads that raced a little out of time order, and replays them', () => {
    // A logger reads the clock before it takes its lock: the second row may be earlier.
    const text = [
      HEADER,
      '7,10:00:00.000002,allocate,0x7f0000000000,256,0x0',
      '8,10:00:00.000001,allocate,0x7f0000000100,512,0x0',
      '7,10:00:00.000003,free,0x7f0000000000,256,0x0',
      '8,10:00:00.000004,free,0x7f0000000100,512,0x0',
    ].join('\n');
    const log = parseLog(text);
    expect([...log.time]).toEqual([0, -1, 1, 2]);
    expect(summarizeLog(log)).toMatchObject({ allocations: 2, frees: 2, peakBytes: 768 });
  });

  it('takes columns by name, in any order, with extra columns, CRLF line ends and blank lines', () => {
    const text = [
      'Size,Stream,Thread,Extra,Time,Action,Pointer',
      '100,0,7,x,01:02:03.000004,allocate,0x00AB00',
      '',
      '100,0,7,y,01:02:03.000010,free,0xab00',
    ].join('\r\n');
    const log = parseLog(text);
    expect([...log.size]).toEqual([100, 100]);
    expect([...log.time]).toEqual([0, 6]);
    expect([...log.slot]).toEqual([0, 0]);
    expect([...log.line]).toEqual([2, 4]);
  });

  it("takes null pointers of 0-byte allocations as RMM logs them ((nil), 0x0), and fmt's 0x0 as null", () => {
    const log = parseLog(
      [HEADER, '1,10:00:00.000000,allocate,(nil),0,0', '1,10:00:00.000001,free,0x0,0,0', ''].join('\n'),
    );
    expect([...log.slot]).toEqual([-1, -1]);
    expect([log.allocations, log.frees, log.peakBytes]).toEqual([0, 0, 0]);
  });

  const row = (action: string, pointer: string, size = '10', time = '10:00:00.000002') =>
    `1,${time},${action},${pointer},${size},0`;
  const first = row('allocate', '0x100', '10', '10:00:00.000001');
  it.each([
    [
      'a misspelt action',
      [first, row('alocate', '0x200')],
      3,
      'Action "alocate" is not allocate, free or allocate failure',
    ],
    ['a pointer that is not hex', [first, row('free', '0xZZ')], 3, 'Pointer "0xZZ" is not a hex address (0x7f...)'],
    ['a negative size', [row('allocate', '0x100', '-10')], 2, 'Size "-10" is not a byte count'],
    ['a size with a unit', [row('allocate', '0x100', '10KiB')], 2, 'Size "10KiB" is not a byte count'],
    ['a bad time', [row('allocate', '0x100', '10', '10:00')], 2, 'Time "10:00" is not HH:MM:SS.ffffff'],
    [
      'an hour past 23',
      [row('allocate', '0x100', '10', '24:00:00.000000')],
      2,
      'Time "24:00:00.000000" is not a time of day',
    ],
    [
      'a thread that is not a number',
      ['main,10:00:00.000001,allocate,0x100,10,0'],
      2,
      'Thread "main" is not a thread id',
    ],
    [
      'a stream that is not hex',
      ['1,10:00:00.000001,allocate,0x100,10,default'],
      2,
      'Stream "default" is not a stream handle in hex',
    ],
    [
      'a row with a field missing',
      [first, '1,10:00:00.000002,free,0x100,0'],
      3,
      'expected 6 fields (Thread,Time,Action,Pointer,Size,Stream), found 5: "1,10:00:00.000002,free,0x100,0"',
    ],
    ['a free of nothing', [first, row('free', '0x200')], 3, 'free of 0x200 (10 bytes) that no earlier row allocates'],
    [
      'a second free',
      [first, row('free', '0x100'), row('free', '0x100', '10', '10:00:00.000003')],
      4,
      'free of 0x100 (10 bytes) that line 3 freed already',
    ],
    [
      'an address allocated twice',
      [first, row('allocate', '0x100')],
      3,
      '0x100 is allocated again without a free (allocated at line 2)',
    ],
    [
      'a free of another size',
      [first, row('free', '0x100', '20')],
      3,
      'free of 0x100 with 20 bytes, allocated with 10 at line 2',
    ],
    [
      'an allocation at a null pointer',
      [row('allocate', '(nil)', '64')],
      2,
      "allocate of 64 bytes at a null pointer (a failed allocation is logged as 'allocate failure')",
    ],
  ])('%s is a LogFormatError naming the line', (_what, rows, line, reason) => {
    const error = thrown(() => parseLog([HEADER, ...rows, ''].join('\n'), 'log.csv'));
    expect(error).toBeInstanceOf(LogFormatError);
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe('ERR_INVALID_ARG_VALUE');
    expect([error.line, error.reason, error.message]).toEqual([line, reason, `log.csv:${line}: ${reason}`]);
  });

  it('a truncated last row says so', () => {
    const error = thrown(() => parseLog(`${HEADER}\n1,10:00:00.000001,allocate,0x100,10,0\n1,10:00:00.00`, 'cut.csv'));
    expect(error).toBeInstanceOf(LogFormatError);
    expect(error.message).toBe(
      'cut.csv:3: truncated row (the file ends inside it): expected 6 fields (Thread,Time,Action,Pointer,Size,Stream), found 2: "1,10:00:00.00"',
    );
  });

  it('a complete last row without a newline is read', () => {
    expect(parseLog(`${HEADER}\n1,10:00:00.000001,allocate,0x100,10,0`).events).toBe(1);
  });

  it.each([
    ['', 1, 'empty: no header (want Thread,Time,Action,Pointer,Size,Stream)'],
    ['\n\n', 2, 'empty: no header (want Thread,Time,Action,Pointer,Size,Stream)'],
    [
      'Thread,Time,Action\n1,2,3\n',
      1,
      'not an RMM allocation log: the header "Thread,Time,Action" lacks Pointer, Size, Stream (want Thread,Time,Action,Pointer,Size,Stream)',
    ],
  ])('a file without the header (%j) is a LogFormatError', (text, line, reason) => {
    const error = thrown(() => parseLog(text, 'x.csv'));
    expect(error).toBeInstanceOf(LogFormatError);
    expect([error.line, error.reason]).toEqual([line, reason]);
  });
});

describe('readLog', () => {
  it('streams a file in chunks and reads what parseLog reads, with progress to the last byte', async () => {
    // ~6 MiB: several 1 MiB chunks, rows cut across chunk boundaries.
    const rows = [HEADER];
    for (let i = 0; i < 100_000; i++) {
      const pointer = `0x${(0x7f0000000000 + (i % 64) * 0x1000).toString(16)}`;
      const time = `10:00:${String(Math.floor(i / 1e4)).padStart(2, '0')}.${String((i * 97) % 1e6).padStart(6, '0')}`;
      rows.push(`${1000 + (i % 3)},${time},${i % 128 < 64 ? 'allocate' : 'free'},${pointer},${(i % 64) + 1},0`);
    }
    const text = rows.join('\n') + '\n';
    const file = join(dir, 'big.csv');
    writeFileSync(file, text);
    const progress: [number, number][] = [];
    const log = await readLog(file, { onProgress: (read, total) => progress.push([read, total]) });
    const expected = parseLog(text, file);
    // 781 rounds of 64 allocations and 64 frees, then 32 allocations.
    expect([log.events, log.allocations, log.frees, log.peakBytes, log.slots]).toEqual([
      100_000, 50_016, 49_984, 2080, 64,
    ]);
    expect([...log.slot]).toEqual([...expected.slot]);
    expect([...log.time]).toEqual([...expected.time]);
    expect(progress.length).toBeGreaterThan(3);
    expect(progress.at(-1)).toEqual([text.length, text.length]);
  });

  it('names the file and the line of a bad row', async () => {
    const file = join(dir, 'bad.csv');
    writeFileSync(file, `${HEADER}\n1,10:00:00.000001,allocate,0x100,10,0\n1,10:00:00.000002,free,0x100,10\n`);
    const error = await readLog(file).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LogFormatError);
    expect((error as LogFormatError).message).toBe(
      `${file}:3: expected 6 fields (Thread,Time,Action,Pointer,Size,Stream), found 5: "1,10:00:00.000002,free,0x100,10"`,
    );
  });
});
