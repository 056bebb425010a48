// Sums the vitest JSON reports (<package>/.test-results/<backend>.json, or another folder) of
// every tested package and prints a table and the line `N passed, N failed, N skipped`.
//   node tooling/scripts/summarize.mjs [backend,...]     (default: host,fake)
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseCommandLine } from './arguments.mjs';
import { testedPackages } from './workspace.mjs';

/**
 * The rows (a package and a backend each), the totals and the failures of the reports
 * `<package dir>/<resultsDir>/<backend>.json` of `packages` (`{ name, dir }`; default: every
 * tested package of the workspace). A missing report counts as one failure.
 * @param {string[]} backends
 * @param {string} [resultsDir]
 * @param {{ name: string, dir: string }[]} [packages]
 */
export function summarize(backends, resultsDir = '.test-results', packages = testedPackages()) {
  const rows = [];
  const failures = [];
  const totals = { passed: 0, failed: 0, skipped: 0 };
  for (const pkg of packages) {
    for (const backend of backends) {
      const file = join(pkg.dir, resultsDir, `${backend}.json`);
      let counts;
      if (existsSync(file)) {
        const report = JSON.parse(readFileSync(file, 'utf8'));
        // The failures listed are the ones counted: each failed test, and each file that failed
        // without a failed test (it did not load, a hook threw, its worker died).
        const failed = failuresOf(report, pkg, backend);
        counts = {
          passed: report.numPassedTests ?? 0,
          failed: failed.length,
          skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
        };
        failures.push(...failed);
      } else {
        counts = { passed: 0, failed: 1, skipped: 0, missing: true };
        failures.push({ package: pkg.name, backend, file: '', test: '(no report)', message: [] });
      }
      rows.push({ package: pkg.name, backend, ...counts });
      totals.passed += counts.passed;
      totals.failed += counts.failed;
      totals.skipped += counts.skipped;
    }
  }
  return { rows, totals, failures };
}

const ANSI = /\u001b\[[0-9;]*m/g;
const MESSAGE_LINES = 4;

/** Each failed test, and each file that failed without one, of a report: where, and its message's first lines. */
function failuresOf(report, pkg, backend) {
  const failures = [];
  for (const file of report.testResults ?? []) {
    const where = { package: pkg.name, backend, file: relative(pkg.dir, file.name ?? '') };
    const failed = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
    if (file.status === 'failed' && failed.length === 0) {
      failures.push({ ...where, test: '(the file)', message: firstLines(file.message) });
    }
    for (const test of failed) {
      failures.push({ ...where, test: test.fullName, message: firstLines((test.failureMessages ?? []).join('\n')) });
    }
  }
  return failures;
}

/** The message's first lines and the stack's first frame (where it was thrown). */
function firstLines(text = '') {
  const lines = text
    .replace(ANSI, '')
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '');
  const isFrame = (line) => line.trimStart().startsWith('at ');
  const frame = lines.find(isFrame);
  return [...lines.filter((line) => !isFrame(line)).slice(0, MESSAGE_LINES), ...(frame ? [frame] : [])];
}

/** The rows and failures of the packages `selected(name)` accepts, and their totals. */
export function onlyPackages({ rows, failures }, selected) {
  const kept = rows.filter((r) => selected(r.package));
  const totals = { passed: 0, failed: 0, skipped: 0 };
  for (const r of kept) for (const key of Object.keys(totals)) totals[key] += r[key];
  return { rows: kept, totals, failures: failures.filter((f) => selected(f.package)) };
}

/**
 * The table, then each failed test as `FAILED <package> (<backend>) <file> > <test>` with the
 * first lines of its message indented under it (CI repeats the FAILED lines at its end), then the
 * summed line: the lines `printSummary` prints.
 * @param {{ rows: any[], totals: any, failures?: any[] }} summary
 */
export function formatSummary({ rows, totals, failures = [] }) {
  const width = Math.max(7, ...rows.map((r) => r.package.length));
  const lines = ['', `${'package'.padEnd(width)}  backend  passed  failed  skipped`];
  for (const r of rows) {
    const note = r.missing ? '  (no report: counted as a failure)' : '';
    lines.push(
      `${r.package.padEnd(width)}  ${r.backend.padEnd(7)}  ${String(r.passed).padStart(6)}  ${String(r.failed).padStart(6)}  ${String(r.skipped).padStart(7)}${note}`,
    );
  }
  for (const f of failures) {
    lines.push(`FAILED ${f.package} (${f.backend}) ${f.file ? `${f.file} > ` : ''}${f.test}`);
    for (const line of f.message) lines.push(`FAILED     ${line}`);
  }
  lines.push(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
  return lines;
}

/** Prints what `formatSummary` gives. */
export function printSummary(summary) {
  console.log(formatSummary(summary).join('\n'));
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { positionals } = parseCommandLine('summarize', {}, { positionals: { what: 'one list of backends', max: 1 } });
  const summary = summarize((positionals[0] ?? 'host,fake').split(','));
  printSummary(summary);
  process.exit(summary.totals.failed > 0 ? 1 : 0);
}
