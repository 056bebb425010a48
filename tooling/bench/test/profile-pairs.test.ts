// profile-pairs.mjs end to end on the Node-API floor loop (it needs no GPU): the
// loops in turns in one process, each loop's samples of all its turns in one file, the analysis.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const script = fileURLToPath(new URL('../src/profile-pairs.mjs', import.meta.url));
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

it('refuses a loop it does not have and a count of turns that is not a whole number >= 1, before it makes the output folder', () => {
  const out = join(tmpdir(), `rmmjs-profile-unused-${process.pid}`);
  const unknown = node('--out', out, '--loops', 'floor,nothing');
  expect(unknown.status).toBe(1);
  expect(unknown.stderr).toContain('profile-pairs: no loop nothing (async-js, async-abi,');
  for (const rounds of ['0', '2.5', 'many']) {
    const run = node('--out', out, '--loops', 'floor', '--alternate', rounds);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('profile-pairs: --alternate takes a count of turns >= 1');
  }
  expect(existsSync(out)).toBe(false);
});
