// arena.mjs, the arena's own benchmarks: its command line, and a quick run with one thread of each
// kind on this backend.
import { describe, expect, it } from 'vitest';
import { run } from './run.js';

describe('arena.mjs', () => {
  it.each([
    [['--all'], 'unknown option --all (options: --quick, --threads N,...)'],
    [['--threads'], '--threads needs a value (--threads N,...)'],
    [['--threads', '0,1'], '--threads takes whole numbers from 1 to 64 separated by commas, not 0,1'],
  ])('refuses %j before anything is measured', (args, message) => {
    expect(run('arena.mjs', args)).toMatchObject({ status: 2, stdout: '', stderr: `arena: ${message}\n` });
  });

  it('--quick --threads 1: the pairs, the random workloads, and one worker thread and one native thread', () => {
    const arena = run('arena.mjs', ['--quick', '--threads', '1']);
    expect([arena.status, arena.stderr]).toEqual([0, '']);
    const lines = arena.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ArenaMemoryResource on \S.* \(upstream \w+\)$/);
    // Each row: its name, then its figure and unit.
    const rows = lines.slice(1).map((line) => {
      const [, name, figure, unit] = /^(.+?) +(\d+\.\d) (\S+)/.exec(line) ?? [];
      expect(Number(figure), line).toBeGreaterThan(0);
      return `${name} | ${unit}`;
    });
    expect(rows).toEqual([
      'pair 1 MiB through the C ABI (C++ loop) | ns',
      'pair 256 B through the C ABI (C++ loop) | ns',
      'pair 1 MiB from JS | ns',
      'random workload (20000 steps, 1 B..4 MiB) through the C ABI | ns/op',
      'random workload from JS | ns/op',
      'random workload (1 B..1 MiB) through the C ABI | ns/op',
      '1 worker_threads, pairs of 1 MiB: ops/s (all workers) | ops/s',
      '1 native threads, pairs of 1 MiB: ops/s (all threads) | ops/s',
    ]);
  });
});
