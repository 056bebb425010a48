// The soak (tooling/scripts/soak.mjs) for five seconds on this backend: it passes, and its figures
// say it did work; on the fake driver, an injected failure makes it fail. Its command line.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onFake, spawnWithHangReport } from '@rmmjs/test-helpers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seed } from './common.js';

const soak = fileURLToPath(new URL('../../scripts/soak.mjs', import.meta.url));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rmmjs-soak-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function runSoak(env: Record<string, string> = {}) {
  const json = join(dir, 'soak.json');
  // A hang (killed after two minutes) shows the native stacks of its threads in stderr.
  const run = spawnWithHangReport(
    process.execPath,
    [soak, '--seconds', '5', '--workers', '2', '--seed', String(seed), '--json', json],
    { env: { ...process.env, ...env }, timeout: 120_000 },
  );
  return { ...run, figures: existsSync(json) ? JSON.parse(readFileSync(json, 'utf8')) : undefined };
}

describe('tooling/scripts/soak.mjs', () => {
  it('runs for five seconds and passes', () => {
    const { status, signal, stdout, stderr, figures } = runSoak();
    expect([status, signal, stderr]).toEqual([0, null, '']);
    expect(stdout).toMatch(/^soak: PASS in \d+ s: /m);
    expect(figures.problems).toEqual([]);
    expect(figures.rounds).toBeGreaterThanOrEqual(1);
    expect(figures.allocations).toBeGreaterThan(0);
    expect(figures.checks).toBeGreaterThan(0);
    expect(figures.peakMeter).toBeGreaterThan(0);
    expect(figures.peakMeter).toBeLessThanOrEqual(figures.poolSize);
  });

  it('refuses an unknown option, an option without its value and a value that is not the number it takes', () => {
    const run = (...args: string[]) => spawnWithHangReport(process.execPath, [soak, ...args], { timeout: 60_000 });
    const options =
      '--minutes M, --seconds S, --workers N, --round-seconds S, --pool-size BYTES, --max-size BYTES, --seed N, --json FILE';
    expect(run('--hours', '1')).toMatchObject({
      status: 2,
      stdout: '',
      stderr: `soak: unknown option --hours (options: ${options})\n`,
    });
    expect(run('--seconds', '5', '--json')).toMatchObject({
      status: 2,
      stdout: '',
      stderr: 'soak: --json needs a value (--json FILE)\n',
    });
    expect(run('--seconds', 'five')).toMatchObject({
      status: 2,
      stdout: '',
      stderr: 'soak: --seconds takes a number >= 0, not five\n',
    });
    expect(run('--workers', '1.5')).toMatchObject({
      status: 2,
      stdout: '',
      stderr: 'soak: --workers takes a whole number >= 0, not 1.5\n',
    });
  });

  it.runIf(onFake())('fails, saying why, when a copy fails', () => {
    const { status, signal, stdout, stderr, figures } = runSoak({
      RMMJS_FAKE_CUDA_FAIL: 'cuMemcpyAsync:100:CUDA_ERROR_LAUNCH_FAILED',
    });
    expect([status, signal], stderr).toEqual([1, null]);
    expect(stdout, stderr).toMatch(/^soak: FAIL \(1 problems\) in \d+ s: /m);
    expect(stderr).toContain('CUDA error at cuMemcpyAsync: CUDA_ERROR_LAUNCH_FAILED');
    expect(figures.problems).toHaveLength(1);
  });
});
