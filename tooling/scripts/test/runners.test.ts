// The suite runners' command lines, and a run of each that picks no package (they cannot run
// another package's suite from inside this one): test.mjs (pnpm test), test-gpu.mjs,
// sanitize-gpu.mjs, asan.mjs (its --restore, refused during a run) and gpu-run.sh.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnWithHangReport } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

const script = (name: string) => fileURLToPath(new URL(`../${name}`, import.meta.url));
const node = (name: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
  spawnWithHangReport(process.execPath, [script(name), ...args], { env: { ...process.env, ...env }, timeout: 60_000 });
const packages = 'one list of packages';
const emptySummary = ['', 'package  backend  passed  failed  skipped', '0 passed, 0 failed, 0 skipped', ''].join('\n');

describe('test.mjs', () => {
  it('takes no arguments: an option or an argument is refused before anything is built', () => {
    expect(node('test.mjs', ['--bogus'])).toMatchObject({
      status: 2,
      stdout: '',
      stderr: 'test: unknown option --bogus (it takes no options)\n',
    });
    expect(node('test.mjs', ['pool'])).toMatchObject({
      status: 2,
      stdout: '',
      stderr: 'test: unexpected argument pool (it takes no options)\n',
    });
  });
});

describe('test-gpu.mjs', () => {
  it('refuses an unknown option and a second list of packages', () => {
    expect(node('test-gpu.mjs', ['--bogus'])).toMatchObject({
      status: 2,
      stdout: '',
      stderr: 'test-gpu: unknown option --bogus (it takes no options)\n',
    });
    expect(node('test-gpu.mjs', ['pool', 'core'])).toMatchObject({
      status: 2,
      stderr: `test-gpu: unexpected argument core (it takes ${packages})\n`,
    });
  });

  it('runs the packages a list picks: none, an empty table and the summed line', () => {
    expect(node('test-gpu.mjs', ['no-such-package'])).toMatchObject({
      status: 0,
      stdout: `\ntest-gpu: seconds per package: \n${emptySummary}`,
      stderr: '',
    });
  });
});

describe('sanitize-gpu.mjs', () => {
  it('refuses an unknown option and a second list of packages', () => {
    expect(node('sanitize-gpu.mjs', ['--tool', 'memcheck'])).toMatchObject({
      status: 2,
      stderr: 'sanitize-gpu: unknown option --tool (it takes no options)\n',
    });
    expect(node('sanitize-gpu.mjs', ['pool', 'core'])).toMatchObject({
      status: 2,
      stderr: `sanitize-gpu: unexpected argument core (it takes ${packages})\n`,
    });
  });

  it('runs the packages a list picks (none) and writes its logs where RMMJS_SANITIZE_LOGS says', () => {
    const logs = mkdtempSync(join(tmpdir(), 'rmmjs-sanitize-'));
    try {
      const run = node('sanitize-gpu.mjs', ['no-such-package'], {
        COMPUTE_SANITIZER: '/no/compute-sanitizer',
        RMMJS_SANITIZE_LOGS: logs,
      });
      expect(run).toMatchObject({
        status: 0,
        stdout:
          '/no/compute-sanitizer\n\ncompute-sanitizer memcheck (leak check full), per package:\n' +
          `package                    procs memory leaks   api  seconds\n${emptySummary}`,
        stderr: '',
      });
    } finally {
      rmSync(logs, { recursive: true, force: true });
    }
  });
});

describe('asan.mjs', () => {
  it('refuses an unknown option, a value given to --restore and a second list of packages', () => {
    expect(node('asan.mjs', ['--bogus'])).toMatchObject({
      status: 2,
      stdout: '',
      stderr: 'asan: unknown option --bogus (options: --restore)\n',
    });
    expect(node('asan.mjs', ['--restore=yes'])).toMatchObject({
      status: 2,
      stderr: 'asan: --restore takes no value\n',
    });
    expect(node('asan.mjs', ['pool', 'core'])).toMatchObject({
      status: 2,
      stderr: `asan: unexpected argument core (it takes ${packages})\n`,
    });
  });

  // Under `pnpm test:asan` (its runtime preloaded here), the run's sanitized files are in build/.
  const underAsan = /libasan/.test(process.env.LD_PRELOAD ?? '');

  it.skipIf(underAsan)('--restore puts back the normal builds an interrupted run left (none here)', () => {
    expect(node('asan.mjs', ['--restore'])).toMatchObject({
      status: 0,
      stdout: 'asan: 0 normal files put back\n',
      stderr: '',
    });
  });

  it.runIf(underAsan)('--restore refuses while a run is in progress: its sanitized files stay until it ends', () => {
    const run = node('asan.mjs', ['--restore']);
    expect(run).toMatchObject({ status: 1, stderr: '' });
    expect(run.stdout).toMatch(
      /^asan: a run is in progress \(pid \d+\); it puts the normal builds back when it ends\n$/,
    );
  });
});

describe('gpu-run.sh', () => {
  const bash = (...args: string[]) => spawnWithHangReport('bash', [script('gpu-run.sh'), ...args], { timeout: 60_000 });
  it('refuses an option and a second list of packages before it runs anything', () => {
    const usage = 'it takes one list of packages (name,name,...)';
    expect(bash('--quick')).toMatchObject({
      status: 2,
      stdout: '',
      stderr: `gpu-run: unknown option --quick (${usage})\n`,
    });
    expect(bash('pool', 'core')).toMatchObject({
      status: 2,
      stdout: '',
      stderr: `gpu-run: unexpected argument core (${usage})\n`,
    });
  });
});
