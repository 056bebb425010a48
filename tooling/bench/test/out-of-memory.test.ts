// out-of-memory.mjs, what a caught OutOfMemoryError costs: its command line, and a quick run on this
// backend (a raw allocate() that no collection could help costs none).
import { describe, expect, it } from 'vitest';
import { run } from './run.js';

describe('out-of-memory.mjs', () => {
  it.each([
    [['--all'], 'unknown option --all (options: --quick, --failures N)'],
    [['--failures'], '--failures needs a value (--failures N)'],
  ])('refuses %j before anything is measured', (args, message) => {
    expect(run('out-of-memory.mjs', args)).toMatchObject({
      status: 2,
      stdout: '',
      stderr: `out-of-memory: ${message}\n`,
    });
  });

  it('--quick: a row per kind of failure, with the time and the full collections', () => {
    const result = run('out-of-memory.mjs', ['--quick']);
    expect([result.status, result.stderr]).toEqual([0, '']);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^caught OutOfMemoryError on \S.* \(64 MiB limit\)$/);
    const rows = lines.slice(1).map((line) => {
      const [, name, figure, unit, note] = /^(.+?) +(\d+\.\d) (\S+) +(.*)$/.exec(line) ?? [];
      expect(Number(figure), line).toBeGreaterThan(0);
      return [name, unit, note.replace(/^\d+ full/, 'N full')];
    });
    expect(rows).toEqual([
      ['raw allocate() of more than is left, no buffer holds memory', 'us/failure', 'N full collections for 100'],
      ['new DeviceBuffer beside 56 MiB of buffers still referenced', 'us/failure', 'N full collections for 100'],
      ['the same, the event loop turning after each failure', 'us/failure', 'N full collections for 20'],
      ['drop-only loop of 4 MiB buffers (4 x the limit), reclaimed', 'us/buffer', 'N full collections for 64'],
    ]);
    expect(lines[1]).toMatch(/ 0 full collections for 100$/);
  });
});
