// profile-pairs.mjs, through the entry point the GPU machine runs (tooling/scripts/
// profile-pairs.mjs), end to end on the Node-API floor loop (it needs no GPU): the loops in turns
// in one process, each loop's samples of all its turns in one file, the analysis. Its command line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../scripts/profile-pairs.mjs', import.meta.url));
const node = (...args: string[]) => spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' });

it.runIf(process.platform === 'linux' && process.arch === 'x64')(
  'profiles loops in turns in one process and names the functions the samples fell in',
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'rmmjs-profile-'));
    try {
      const run = node('--out', dir, '--seconds', '0.4', '--alternate', '3', '--loops', 'floor');
      expect(run.status, run.stderr).toBe(0);
      const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
      expect(Object.keys(summary)).toEqual(['floor']);
      const { plainNs, plainNsPerTurn, samples } = summary.floor;
      expect(plainNsPerTurn).toHaveLength(3);
      expect(plainNs).toBe([...plainNsPerTurn].sort((a: number, b: number) => a - b)[1]);
      const lines = readFileSync(join(dir, 'floor.samples'), 'utf8').trim().split('\n');
      expect(lines.filter((line) => line.startsWith('pc '))).toHaveLength(samples);
      expect(samples).toBeGreaterThan(0);
      expect(existsSync(join(dir, 'turn.samples'))).toBe(false);

      const analysis = node('--analyze', dir, '--top', '5');
      expect(analysis.status, analysis.stderr).toBe(0);
      expect(analysis.stdout).toContain(`floor: ${plainNs.toFixed(1)} ns a pair`);
      expect(analysis.stdout).toMatch(/top functions:\n.*% +[\d.]+ ns {2}\S+: \S/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

it('refuses an unknown option, an option without its value, a number that is not one, and a loop it does not have, before it makes the output folder', () => {
  const out = join(tmpdir(), `rmmjs-profile-unused-${process.pid}`);
  const refused = (...args: string[]) => {
    const run = node(...args);
    return [run.status, run.stdout, run.stderr];
  };
  const options =
    'options: --out DIR, --seconds S, --interval-us US, --loops LOOP,..., --alternate TURNS, --analyze DIR, --top N';
  expect(refused('--out', out, '--perf')).toEqual([2, '', `profile-pairs: unknown option --perf (${options})\n`]);
  expect(refused('--out', out, '--loops')).toEqual([
    2,
    '',
    'profile-pairs: --loops needs a value (--loops LOOP,...)\n',
  ]);
  expect(refused('--out', out, '--seconds', 'long')).toEqual([
    2,
    '',
    'profile-pairs: --seconds takes a number >= 0.001, not long\n',
  ]);
  expect(refused('--out', out, '--loops', 'floor', '--alternate', '2.5')).toEqual([
    2,
    '',
    'profile-pairs: --alternate takes a whole number >= 1, not 2.5\n',
  ]);
  expect(refused('--out', out, '--loops', 'floor,nothing')).toEqual([
    2,
    '',
    'profile-pairs: no loop nothing (async-js, async-abi, async-driver, pool-js, floor, pool-abi, limiting-abi, tracking-abi, statistics-abi)\n',
  ]);
  expect(refused('--seconds', '1')).toEqual([2, '', 'profile-pairs: takes --out DIR (or --analyze DIR)\n']);
  expect(existsSync(out)).toBe(false);
});
