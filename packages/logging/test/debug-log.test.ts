// The debug log's file and line format (RMM's default sink and pattern), and the messages of the
// resources at RMM's levels. Each case runs in a fresh process: the logger opens its file once.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInProcess } from '@rmmjs/test-helpers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// RMM's "[%6t][%H:%M:%S:%f][%-6l] %v": the thread id right-aligned in 6, the level left-aligned in 6.
const linePattern =
  /^\[( *\d+)\]\[(\d{2}:\d{2}:\d{2}):(\d{6})\]\[(trace |debug |info  |warning|error |critical|off   )\] (.*)$/;

let dir: string;
let logFile: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rmmjs-debug-log-'));
  logFile = join(dir, 'debug.log');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

// Runs the child script test/children/<name>.js with its debug log in logFile.
function run(name: string) {
  const result = runInProcess(new URL(`./children/${name}.js`, import.meta.url), {
    env: { RMM_DEBUG_LOG_FILE: logFile },
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result;
}

const logLines = () => readFileSync(logFile, 'utf8').split('\n').slice(0, -1);

describe('the debug log file', () => {
  it("is $RMM_DEBUG_LOG_FILE, truncated, one line per message in RMM's pattern", () => {
    writeFileSync(logFile, 'a line from an earlier run\n');
    const { stdout } = run('logs-every-level');
    const [before, after] = stdout.split(' ');
    const lines = logLines();
    expect(lines).toHaveLength(7);
    const names = ['trace ', 'debug ', 'info  ', 'warning', 'error ', 'critical', 'off   '];
    lines.forEach((line, level) => {
      const match = linePattern.exec(line);
      expect(match, line).not.toBeNull();
      const [, thread, time, , name, message] = match!;
      expect(thread.length).toBeGreaterThanOrEqual(6);
      expect(Number(thread)).toBeGreaterThan(0); // the main thread's id: the child's pid
      expect(name).toBe(names[level]);
      expect(message).toBe(`message ${level}`);
      if (before <= after) {
        expect(time >= before && time <= after, `${before} <= ${time} <= ${after}`).toBe(true);
      }
    });
    expect(new Set(lines.map((line) => linePattern.exec(line)![1])).size).toBe(1);
  });

  it('holds messages below the level back, and the main thread logs as its process id', () => {
    const { stdout } = run('holds-back-below-level');
    const lines = logLines();
    expect(lines.map((line) => linePattern.exec(line)![5])).toEqual(['info: logged', 'error: logged']);
    expect(linePattern.exec(lines[0])![1]).toBe(stdout.padStart(6));
  });

  it('below the flush level, messages wait for flushLogger()', () => {
    const { stdout } = run('flushes');
    expect(JSON.parse(stdout)).toEqual(['', true, true]);
  });

  it('lines from many threads at once stay whole, each with its thread id', () => {
    run('logs-from-threads');
    const lines = logLines();
    expect(lines).toHaveLength(2000);
    const threads = new Map<string, string[]>();
    for (const line of lines) {
      const match = linePattern.exec(line);
      expect(match, line).not.toBeNull();
      const [, thread, , , , message] = match!;
      threads.set(thread, [...(threads.get(thread) ?? []), message]);
    }
    expect(threads.size).toBe(4);
    for (const messages of threads.values()) {
      const worker = /^worker (\d) line 0$/.exec(messages[0])![1];
      expect(messages).toEqual(Array.from({ length: 500 }, (_, i) => `worker ${worker} line ${i}`));
    }
  });
});

describe("the resources' messages, at RMM's levels", () => {
  it('a pool that cannot grow logs an error; growing from upstream logs at debug', () => {
    const { stdout } = run('pool-messages');
    expect(stdout).toBe('ERR_RMM_OUT_OF_MEMORY\nERR_RMM_OUT_OF_MEMORY');
    expect(logLines().map((line) => linePattern.exec(line)!.slice(4).join(''))).toEqual([
      'error [A][Stream 0][Upstream 4096B][FAILURE maximum pool size exceeded: Not enough room to grow, current/max/try size = 1024.000000 B, 2.000000 KiB, 4.000000 KiB]',
      'debug [A][Stream 0][Upstream 1024B]',
    ]);
  });

  it("an arena's dump on failure is at info (details at debug); tracking's report at debug, its errors at error", () => {
    run('arena-and-tracking-messages');
    const levels = logLines().map((line) => {
      const [, , , , level, message] = linePattern.exec(line)!;
      return `${level.trim()} ${message.split(':')[0]}`;
    });
    expect(levels).toContain('info Ran out of memory trying to allocate 8.000000 MiB.');
    expect(levels).toContain('info   Total free memory');
    expect(levels).not.toContain('info   Total size of superblocks'); // a debug line
    expect(levels.some((line) => line.startsWith('debug'))).toBe(false); // the tracking report too
    expect(levels.at(-1)).toBe('error Alloc bytes (100) and Dealloc bytes (99) do not match');
  });
});
