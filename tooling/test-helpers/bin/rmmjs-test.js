#!/usr/bin/env node
// Runs the vitest suite of the package in the current directory once per backend and writes
// vitest's JSON report to .test-results/<backend>.json (a synthetic failed report when vitest
// dies without one, so a crash is counted, never lost).
//   RMMJS_TEST_BACKENDS=host,fake (default) | gpu
//     host: no CUDA (RMMJS_DISABLE_CUDA=1); fake: tooling/fake-cuda's driver; gpu: the real driver.
//   RMMJS_TEST_RESULTS_DIR: another folder than .test-results (the sanitizer run keeps its own).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { libraryPath } from '@rmmjs/fake-cuda';

const here = dirname(fileURLToPath(import.meta.url));
const packageDir = process.cwd();
const config = join(here, '..', 'vitest.config.js');
const vitest = join(
  dirname(createRequire(join(packageDir, 'package.json')).resolve('vitest/package.json')),
  'vitest.mjs',
);
const backends = (process.env.RMMJS_TEST_BACKENDS ?? 'host,fake')
  .split(',')
  .map((b) => b.trim())
  .filter(Boolean);
const resultsDir = join(packageDir, process.env.RMMJS_TEST_RESULTS_DIR || '.test-results');
mkdirSync(resultsDir, { recursive: true });

function environment(backend) {
  const env = { ...process.env, RMMJS_TEST_BACKEND: backend };
  delete env.RMMJS_DISABLE_CUDA;
  delete env.RMMJS_CUDA_LIBRARY;
  if (backend === 'host') env.RMMJS_DISABLE_CUDA = '1';
  if (backend === 'fake') {
    env.RMMJS_CUDA_LIBRARY = libraryPath;
    env.RMMJS_FAKE_CUDA_DEVICES ??= '2';
  }
  return env;
}

let failed = false;
for (const backend of backends) {
  if (!['host', 'fake', 'gpu'].includes(backend)) {
    console.error(`rmmjs-test: unknown backend "${backend}" (host, fake or gpu)`);
    process.exit(2);
  }
  const report = join(resultsDir, `${backend}.json`);
  rmSync(report, { force: true });
  const args = [
    vitest,
    'run',
    '--config',
    config,
    '--root',
    packageDir,
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
  ];
  // On a GPU: one file at a time, each in a process of its own (as the suites ran there so far).
  if (backend === 'gpu') args.push('--no-file-parallelism', '--isolate');
  console.log(`\nrmmjs-test: ${backend} backend`);
  const run = spawnSync(process.execPath, [...args, ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: environment(backend),
  });
  if (run.status !== 0) failed = true;
  if (!existsSync(report)) {
    const why = run.signal ? `killed by ${run.signal}` : `exit status ${run.status}`;
    writeFileSync(
      report,
      JSON.stringify({
        numPassedTests: 0,
        numFailedTests: 1,
        numPendingTests: 0,
        numTodoTests: 0,
        success: false,
        testResults: [{ name: `vitest (${backend})`, status: 'failed', message: `vitest wrote no report: ${why}` }],
      }),
    );
    console.error(`rmmjs-test: vitest wrote no report (${why}); counted as one failure`);
  } else if (run.status !== 0) {
    countFailureOutsideTests(report, `vitest exited with status ${run.status ?? run.signal}`);
  }
}

// vitest fails a run for an error outside any test (an unhandled error, a worker process that
// died) but its report shows no failed test then: the test that was running when a worker died
// is "pending". The report gets one failed entry for it, so that the summed line counts it.
function countFailureOutsideTests(file, why) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  if ((report.numFailedTests ?? 0) > 0 || (report.testResults ?? []).some((r) => r.status === 'failed')) return;
  report.success = false;
  report.testResults = [
    ...(report.testResults ?? []),
    { name: 'vitest', status: 'failed', message: `${why}: an error outside any test`, assertionResults: [] },
  ];
  writeFileSync(file, JSON.stringify(report));
  console.error(`rmmjs-test: ${why} with no failed test in its report; counted as one failure`);
}
process.exit(failed ? 1 : 0);
