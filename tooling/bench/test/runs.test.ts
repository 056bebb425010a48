// bench.mjs --runs N (the table N times, a process each) and --from-runs FILE... (the summary of
// runs already made): per row the median and the range, the targets on the medians with the range
// of each run's own ratio.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from './run.js';

const dir = mkdtempSync(join(tmpdir(), 'rmmjs-bench-runs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

describe('bench.mjs --from-runs', () => {
  it('sums runs already made: medians, ranges, and the targets on the medians', () => {
    const json = join(dir, 'summary.json');
    const summed = run('bench.mjs', ['--from-runs', fixture('run-1.json'), fixture('run-2.json'), '--json', json]);
    expect([summed.status, summed.stderr]).toEqual([0, '']);
    expect(summed.stdout.split('\n')).toEqual([
      '',
      '=== 2 runs on NVIDIA H200: median (min-max); each run took 301, 310 s ===',
      'CudaMemoryResource       pair 1 MiB from JS                                 1050.0 (1000.0-1100.0)        ns',
      'CudaMemoryResource       pair 1 MiB: cuMemAlloc+cuMemFree C++ loop           990.0 (980.0-1000.0)         ns',
      'copies                   host->device 256 MiB (pageable)                      19.0 (17.5-20.5)            GB/s',
      'copies                   pinned->device 256 MiB                               21.0 (21.0-21.0)            GB/s',
      '',
      "targets (ratios of the medians; the range of each run's own ratio)",
      'Cuda pair / cuMemAlloc loop                     1.061 (1.020-1.100)  target <= 1.05  MISSED',
      'pageable host->device / pinned                  0.905 (0.833-0.976)  target >= 0.9  met',
      '',
    ]);
    const summary = JSON.parse(readFileSync(json, 'utf8'));
    expect(summary).toMatchObject({ gpu: true, device: 'NVIDIA H200', quick: false, runs: 2, seconds: [301.4, 309.6] });
    expect(summary.rows[0]).toEqual({
      group: 'CudaMemoryResource',
      name: 'pair 1 MiB from JS',
      unit: 'ns',
      values: [1000, 1100],
      median: 1050,
      min: 1000,
      max: 1100,
    });
    expect(summary.targets).toEqual([
      {
        name: 'Cuda pair / cuMemAlloc loop',
        ratio: 1050 / 990,
        range: { min: 1.0204, max: 1.1 },
        op: '<=',
        target: 1.05,
        met: false,
        verdict: 'MISSED',
      },
      {
        name: 'pageable host->device / pinned',
        ratio: 19 / 21,
        range: { min: 0.8333, max: 0.9762 },
        op: '>=',
        target: 0.9,
        met: true,
        verdict: 'met',
      },
    ]);
  });

  it('fails on a file that is not a run', () => {
    const summed = run('bench.mjs', ['--from-runs', join(dir, 'no-such-run.json')]);
    expect(summed.status).toBe(1);
    expect(summed.stderr).toContain("ENOENT: no such file or directory, open '");
  });
});

describe('bench.mjs --runs 2 --quick --copies-only', () => {
  it('runs the table twice, keeps each run next to the summary, and sums them', () => {
    const json = join(dir, 'copies.json');
    const runs = run('bench.mjs', ['--runs', '2', '--quick', '--copies-only', '--json', json]);
    expect([runs.status, runs.stderr]).toEqual([0, '']);
    const each = [1, 2].map((n) => JSON.parse(readFileSync(join(dir, `copies.run-${n}.json`), 'utf8')));
    const summary = JSON.parse(readFileSync(json, 'utf8'));
    expect(summary.runs).toBe(2);
    expect(summary.rows.map(({ group, name }: Record<string, string>) => `${group} | ${name}`)).toEqual(
      each[0].rows.map(({ group, name }: Record<string, string>) => `${group} | ${name}`),
    );
    summary.rows.forEach((row: { values: number[]; median: number; min: number; max: number }, i: number) => {
      expect(row.values).toEqual(each.map((result) => result.rows[i].value));
      expect(row.median).toBe((row.values[0] + row.values[1]) / 2);
      expect([row.min, row.max]).toEqual([Math.min(...row.values), Math.max(...row.values)]);
    });
    expect(runs.stdout).toContain('\n=== run 1 of 2 ===\n');
    expect(runs.stdout).toContain('\n=== run 2 of 2 ===\n');
    expect(runs.stdout).toContain(`\n=== 2 runs on ${each[0].device}: median (min-max); each run took `);
    expect(existsSync(join(dir, 'copies.run-3.json'))).toBe(false);
  });
});
