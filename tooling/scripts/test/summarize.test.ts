// summarize.mjs, which decides pnpm test's table, its FAILED lines and the summed line that CI
// greps: fed small vitest JSON reports with passes, failures, skips, a file that failed without a
// failed test (it did not load) and a report that is missing (vitest crashed before writing it).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnWithHangReport } from '@rmmjs/test-helpers';
import { afterAll, describe, expect, it } from 'vitest';
import { formatSummary, onlyPackages, summarize } from '../summarize.mjs';

const root = mkdtempSync(join(tmpdir(), 'rmmjs-summarize-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const passed = (fullName: string) => ({ fullName, status: 'passed', failureMessages: [] });
const skipped = (fullName: string) => ({ fullName, status: 'skipped', failureMessages: [] });
const failed = (fullName: string, message: string) => ({ fullName, status: 'failed', failureMessages: [message] });

/** A package folder with a vitest JSON report per backend (undefined: no report). */
function fixturePackage(name: string, reports: Record<string, object | undefined>) {
  const dir = join(root, name.replace(/\W/g, '-'));
  mkdirSync(join(dir, 'results'), { recursive: true });
  for (const [backend, report] of Object.entries(reports)) {
    if (report) writeFileSync(join(dir, 'results', `${backend}.json`), JSON.stringify(report));
  }
  return { name, dir };
}

const file = (dir: string, name: string, status: string, assertionResults: object[], message = '') => ({
  name: join(dir, 'test', name),
  status,
  message,
  assertionResults,
});

const pool = join(root, '-rmmjs-pool');
const core = join(root, '-rmmjs-core');
const packages = [
  fixturePackage('@rmmjs/pool', {
    host: {
      numPassedTests: 3,
      numFailedTests: 0,
      numPendingTests: 1,
      numTodoTests: 1,
      testResults: [
        file(pool, 'pool.test.ts', 'passed', [passed('pool a'), passed('pool b'), skipped('pool c')]),
        file(pool, 'streams.test.ts', 'passed', [passed('streams a')]),
      ],
    },
    fake: {
      numPassedTests: 2,
      numFailedTests: 1,
      numPendingTests: 0,
      numTodoTests: 0,
      testResults: [
        file(pool, 'pool.test.ts', 'failed', [
          passed('pool a'),
          failed(
            'pool b frees on the stream',
            '\u001b[31mAssertionError: expected 1 to be 2\u001b[39m\n\n- Expected\n+ Received\n\n- 2\n+ 1\n' +
              '    at /repo/packages/pool/test/pool.test.ts:12:7\n    at run (vitest/runner.js:1:1)',
          ),
        ]),
        // A file that did not load: failed, with no test in it.
        file(pool, 'broken.test.ts', 'failed', [], "SyntaxError: Unexpected token ')'\n    at compile (node:vm:1:1)"),
        file(pool, 'streams.test.ts', 'passed', [passed('streams a')]),
      ],
    },
  }),
  // vitest died before it wrote the fake backend's report.
  fixturePackage('@rmmjs/core', {
    host: {
      numPassedTests: 1,
      numFailedTests: 0,
      numPendingTests: 0,
      numTodoTests: 0,
      testResults: [file(core, 'core.test.ts', 'passed', [passed('core a')])],
    },
    fake: undefined,
  }),
];

describe('summarize', () => {
  const summary = summarize(['host', 'fake'], 'results', packages);

  it('counts each package and backend: passes, failures (each failed test and each file that failed without one), skips and todos', () => {
    expect(summary.rows).toEqual([
      { package: '@rmmjs/pool', backend: 'host', passed: 3, failed: 0, skipped: 2 },
      { package: '@rmmjs/pool', backend: 'fake', passed: 2, failed: 2, skipped: 0 },
      { package: '@rmmjs/core', backend: 'host', passed: 1, failed: 0, skipped: 0 },
      { package: '@rmmjs/core', backend: 'fake', passed: 0, failed: 1, skipped: 0, missing: true },
    ]);
    expect(summary.totals).toEqual({ passed: 6, failed: 3, skipped: 2 });
  });

  it('prints the table, a FAILED line for each failure with its first lines and its first frame, and the summed line', () => {
    expect(formatSummary(summary)).toEqual([
      '',
      'package      backend  passed  failed  skipped',
      '@rmmjs/pool  host          3       0        2',
      '@rmmjs/pool  fake          2       2        0',
      '@rmmjs/core  host          1       0        0',
      '@rmmjs/core  fake          0       1        0  (no report: counted as a failure)',
      'FAILED @rmmjs/pool (fake) test/pool.test.ts > pool b frees on the stream',
      'FAILED     AssertionError: expected 1 to be 2',
      'FAILED     - Expected',
      'FAILED     + Received',
      'FAILED     - 2',
      'FAILED         at /repo/packages/pool/test/pool.test.ts:12:7',
      'FAILED @rmmjs/pool (fake) test/broken.test.ts > (the file)',
      "FAILED     SyntaxError: Unexpected token ')'",
      'FAILED         at compile (node:vm:1:1)',
      'FAILED @rmmjs/core (fake) (no report)',
      '6 passed, 3 failed, 2 skipped',
    ]);
  });

  it('keeps the rows and failures of the packages picked, with their own totals', () => {
    const picked = onlyPackages(summary, (name: string) => name === '@rmmjs/core');
    expect(formatSummary(picked).slice(1)).toEqual([
      'package      backend  passed  failed  skipped',
      '@rmmjs/core  host          1       0        0',
      '@rmmjs/core  fake          0       1        0  (no report: counted as a failure)',
      'FAILED @rmmjs/core (fake) (no report)',
      '1 passed, 1 failed, 0 skipped',
    ]);
  });

  it('sums nothing to 0 passed, 0 failed, 0 skipped', () => {
    expect(formatSummary(summarize(['host'], 'results', []))).toEqual([
      '',
      'package  backend  passed  failed  skipped',
      '0 passed, 0 failed, 0 skipped',
    ]);
  });
});

describe('summarize.mjs as a command', () => {
  const summarizeCommand = (...args: string[]) =>
    spawnWithHangReport(process.execPath, [fileURLToPath(new URL('../summarize.mjs', import.meta.url)), ...args], {
      timeout: 60_000,
    });

  it('takes one list of backends and no option', () => {
    expect(summarizeCommand('--bogus')).toMatchObject({
      status: 2,
      stdout: '',
      stderr: 'summarize: unknown option --bogus (it takes no options)\n',
    });
    expect(summarizeCommand('host', 'fake')).toMatchObject({
      status: 2,
      stdout: '',
      stderr: 'summarize: unexpected argument fake (it takes one list of backends)\n',
    });
  });
});
