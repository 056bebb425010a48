// src/smoke.mjs (`pnpm smoke`), and its old entry point tooling/scripts/smoke-pack.mjs: the command
// line is checked before anything is packed; a run that fails (--on-gpu with no bundle) says why in
// FAIL lines and its last line, and keeps its folder.
import { existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { spawnWithHangReport } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

const smoke = (entry: string, ...args: string[]) =>
  spawnWithHangReport(process.execPath, [fileURLToPath(new URL(entry, import.meta.url)), ...args], { timeout: 60_000 });
const options = 'options: --keep, --gpu-bundle FILE, --on-gpu FILE';

describe('smoke.mjs: the command line', () => {
  it.each([
    [['--bogus'], `unknown option --bogus (${options})`],
    [['--gpu-bundle'], '--gpu-bundle needs a value (--gpu-bundle FILE)'],
    [['--on-gpu', '--keep'], '--on-gpu needs a value (--on-gpu FILE)'],
    [['--keep=yes'], '--keep takes no value'],
    [['bundle.tar.xz'], `unexpected argument bundle.tar.xz (${options})`],
    [
      ['--gpu-bundle', 'a.tar.xz', '--on-gpu', 'a.tar.xz'],
      '--gpu-bundle (here) and --on-gpu (on the GPU machine) are runs of their own',
    ],
  ])('refuses %j', (args, message) => {
    expect(smoke('../src/smoke.mjs', ...args)).toMatchObject({ status: 2, stdout: '', stderr: `smoke: ${message}\n` });
  });

  it('is what the old entry point runs', () => {
    expect(smoke('../../scripts/smoke-pack.mjs', '--bogus')).toMatchObject({
      status: 2,
      stdout: '',
      stderr: `smoke: unknown option --bogus (${options})\n`,
    });
  });
});

describe('smoke.mjs --on-gpu without the bundle', () => {
  it('fails, printing the failed check with the first lines of why, and keeps its folder', () => {
    const run = smoke('../src/smoke.mjs', '--on-gpu', '/no/such/bundle.tar.xz');
    expect(run.status).toBe(1);
    const lines = run.stdout.split('\n').filter((line) => /^(FAIL|     |smoke: )/.test(line));
    const kept = /^smoke: 1 of 1 checks FAILED in \d+ s \(kept (\S+)\)$/.exec(lines.at(-1) ?? '')?.[1];
    try {
      expect(kept, `the last line: ${lines.at(-1)}`).toBeDefined();
      expect(lines[0]).toBe('FAIL smoke/on-gpu.smoke.ts > (the file)');
      expect(lines[1]).toBe(`     \`tar -xJf /no/such/bundle.tar.xz -C ${kept}\` in ${kept} exited 2`);
      expect(existsSync(kept!)).toBe(true);
    } finally {
      if (kept) rmSync(kept, { recursive: true, force: true });
    }
  });
});
