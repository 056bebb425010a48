// Sums the vitest JSON reports (<package>/.test-results/<backend>.json, or another folder) of
// every tested package and prints a table and the line `N passed, N failed, N skipped`.
//   node tooling/scripts/summarize.mjs [backend,...]     (default: host,fake)
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { testedPackages } from './workspace.mjs';

export function summarize(backends, resultsDir = '.test-results') {
  const rows = [];
  const totals = { passed: 0, failed: 0, skipped: 0 };
  for (const pkg of testedPackages()) {
    for (const backend of backends) {
      const file = join(pkg.dir, resultsDir, `${backend}.json`);
      let counts;
      if (existsSync(file)) {
        const report = JSON.parse(readFileSync(file, 'utf8'));
        // A file that failed to load ran no tests: count it as one failure.
        const brokenFiles = (report.testResults ?? []).filter(
          (file) => file.status === 'failed' && (file.assertionResults ?? []).length === 0,
        ).length;
        counts = {
          passed: report.numPassedTests ?? 0,
          failed: (report.numFailedTests ?? 0) + brokenFiles,
          skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
        };
      } else {
        counts = { passed: 0, failed: 1, skipped: 0, missing: true };
      }
      rows.push({ package: pkg.name, backend, ...counts });
      totals.passed += counts.passed;
      totals.failed += counts.failed;
      totals.skipped += counts.skipped;
    }
  }
  return { rows, totals };
}

/** The rows of the packages `selected(name)` accepts, and their totals. */
export function onlyPackages({ rows }, selected) {
  const kept = rows.filter((r) => selected(r.package));
  const totals = { passed: 0, failed: 0, skipped: 0 };
  for (const r of kept) for (const key of Object.keys(totals)) totals[key] += r[key];
  return { rows: kept, totals };
}

export function printSummary({ rows, totals }) {
  const width = Math.max(7, ...rows.map((r) => r.package.length));
  console.log(`\n${'package'.padEnd(width)}  backend  passed  failed  skipped`);
  for (const r of rows) {
    const note = r.missing ? '  (no report: counted as a failure)' : '';
    console.log(
      `${r.package.padEnd(width)}  ${r.backend.padEnd(7)}  ${String(r.passed).padStart(6)}  ${String(r.failed).padStart(6)}  ${String(r.skipped).padStart(7)}${note}`,
    );
  }
  console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const backends = (process.argv[2] ?? 'host,fake').split(',');
  const summary = summarize(backends);
  printSummary(summary);
  process.exit(summary.totals.failed > 0 ? 1 : 0);
}
