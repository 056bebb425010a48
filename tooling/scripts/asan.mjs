// `pnpm test:asan`: every native part (each package's addon, the fake driver, the test addons and
// libraries) built with AddressSanitizer and UndefinedBehaviorSanitizer, then what `pnpm test` runs
// (every package's suite in host mode and on the fake driver; RMMJS_TEST_BACKENDS picks others)
// with the sanitizer runtime preloaded into Node. Fails on any failed test, on any sanitizer report
// (reports are written to files, so that one in a child process whose exit status nobody checks
// still counts) and on any object or library of the sanitized build that was not instrumented.
// See tooling/stress/README.md.
//   node tooling/scripts/asan.mjs [package,...]   (as workspace.mjs's packageSelector reads them)
//   node tooling/scripts/asan.mjs --restore       (puts the normal builds back after an interrupted run)
// The sanitized builds go to <package>/build-asan/ (no prebuilds: those are the normal build's) and
// are copied over build/ for the tests only; the normal files are kept in build-asan/normal/ and
// put back at the end, whatever happens. Its last line is `N passed, N failed, N skipped`, where
// each sanitizer report and each file not instrumented counts as one failure (CI adds it up).
import { execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCommandLine } from './arguments.mjs';
import { isPlain, objectFilesOf, sanitizedBuildOptions, sanitizerTraces } from './sanitized-build.mjs';
import { onlyPackages, printSummary, summarize } from './summarize.mjs';
import { packageSelector, root, testedPackages, workspacePackages } from './workspace.mjs';

const RESULTS = '.test-results-asan';
const logs = join(root, '.asan-logs');
const suppressions = fileURLToPath(new URL('./asan-suppressions.txt', import.meta.url));

const { values, positionals } = parseCommandLine(
  'asan',
  { restore: { type: 'boolean' } },
  { positionals: { what: 'one list of packages', max: 1 } },
);
const selected = packageSelector(positionals[0]);
const backends = (process.env.RMMJS_TEST_BACKENDS ?? 'host,fake')
  .split(',')
  .map((b) => b.trim())
  .filter(Boolean);
const nativePackages = workspacePackages().filter((p) => existsSync(join(p.dir, 'CMakeLists.txt')));

// The files a normal build makes: build/Release/*.node, build/*.so and the test-only addons,
// build/test-addons/<name>/build/Release/<name>.node (and build/test-addons/*.so).
function outputsOf(dir) {
  const found = [];
  const testAddons = join(dir, 'test-addons');
  const testAddonDirs = existsSync(testAddons)
    ? readdirSync(testAddons)
        .filter((name) => statSync(join(testAddons, name)).isDirectory())
        .map((name) => join('test-addons', name, 'build', 'Release'))
    : [];
  for (const sub of ['', 'Release', 'test-addons', ...testAddonDirs]) {
    const at = join(dir, sub);
    if (!existsSync(at)) continue;
    for (const name of readdirSync(at)) {
      if ((name.endsWith('.node') || name.endsWith('.so')) && statSync(join(at, name)).isFile())
        found.push(join(sub, name));
    }
  }
  return found;
}

// A package's prebuilds (prebuilds/<platform>-<arch>/*), each with the file of build/ it is a copy
// of (rmmjs_addon.cmake: <target>.napi.<libc>.node is build/Release/<target>.node; a library it
// ships is build/<library>).
function prebuildsOf(dir) {
  const prebuilds = join(dir, 'prebuilds');
  if (!existsSync(prebuilds)) return [];
  return readdirSync(prebuilds).flatMap((platform) =>
    readdirSync(join(prebuilds, platform)).map((name) => {
      const addon = name.match(/^(.+)\.napi\.\w+\.node$/);
      return {
        file: join(prebuilds, platform, name),
        copyOf: join(dir, 'build', ...(addon ? ['Release', `${addon[1]}.node`] : [name])),
      };
    }),
  );
}

// Puts back the normal files saved in build-asan/normal/ (after a run, or an interrupted one).
function restore() {
  let restored = 0;
  for (const pkg of nativePackages) {
    const saved = join(pkg.dir, 'build-asan', 'normal');
    if (!existsSync(saved)) continue;
    for (const file of outputsOf(saved)) {
      copyFileSync(join(saved, file), join(pkg.dir, 'build', file));
      restored++;
    }
    rmSync(saved, { recursive: true, force: true });
  }
  return restored;
}

// The normal files (build/ and prebuilds/) that carry a sanitizer, after a prebuild that an
// earlier version of this script left sanitized (it built prebuilds too) is made again from build/.
function sanitizedNormalFiles() {
  const found = [];
  for (const pkg of nativePackages) {
    for (const { file, copyOf } of prebuildsOf(pkg.dir)) {
      if (isPlain(file)) continue;
      if (existsSync(copyOf) && isPlain(copyOf)) {
        copyFileSync(copyOf, file);
        console.log(`asan: ${relative(root, file)} was a sanitized build: copied again from ${relative(root, copyOf)}`);
      } else found.push(file);
    }
    for (const file of outputsOf(join(pkg.dir, 'build'))) {
      if (!isPlain(join(pkg.dir, 'build', file))) found.push(join(pkg.dir, 'build', file));
    }
  }
  return found;
}

// The normal files that are still sanitized builds, as FAILED lines; how many.
function reportSanitizedNormalFiles() {
  const left = sanitizedNormalFiles();
  for (const file of left)
    console.log(`FAILED asan: ${relative(root, file)} is still a sanitized build (run pnpm build)`);
  return left.length;
}

// One run at a time, and no --restore during one (a suite of this repository's scripts runs it):
// the run's sanitized files are in build/ until it ends. The file holds the running one's pid (a
// pid that is now another program's is no run).
const running = join(logs, 'run.pid');
const inProgress = () => {
  if (!existsSync(running)) return undefined;
  const pid = Number(readFileSync(running, 'utf8'));
  const commandLine = join('/proc', String(pid), 'cmdline');
  return existsSync(commandLine) && readFileSync(commandLine, 'utf8').includes('asan.mjs') ? pid : undefined;
};
const other = inProgress();
if (other !== undefined) {
  console.log(`asan: a run is in progress (pid ${other}); it puts the normal builds back when it ends`);
  process.exit(1);
}

if (values.restore) {
  console.log(`asan: ${restore()} normal files put back`);
  process.exit(reportSanitizedNormalFiles() > 0 ? 1 : 0);
}
if (restore() > 0) console.log('asan: the normal builds of an interrupted run were put back first');
rmSync(logs, { recursive: true, force: true });
mkdirSync(logs, { recursive: true });
writeFileSync(running, String(process.pid));

// Ctrl-C (or SIGTERM) stops the command that runs (its whole process group: vitest's workers
// too), then the normal builds are put back.
let current;
let interrupted;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    interrupted = signal;
    if (current) process.kill(-current.pid, 'SIGKILL');
  });
}

// Sanitizer reports that reach an output instead of a log file: UBSan's, when ASan's runtime is
// loaded too, ignore log_path (a child process's output is the test's to check). Kept for the
// package whose suite runs; a report's first line (REPORT_START) counts it.
const REPORT = /runtime error:|ERROR: \w+Sanitizer|SUMMARY: \w+Sanitizer/;
const REPORT_START = /runtime error:|ERROR: \w+Sanitizer/;
const printedReports = new Map();
let reportsOf = 'build';

// Runs a command to its end (its output shown, and scanned for reports); its exit status (or signal).
function spawned(command, commandArgs, options) {
  if (interrupted) throw new Error(`asan: interrupted (${interrupted})`);
  return new Promise((resolve, reject) => {
    current = spawn(command, commandArgs, { stdio: ['inherit', 'pipe', 'pipe'], detached: true, ...options });
    for (const [from, to] of [
      [current.stdout, process.stdout],
      [current.stderr, process.stderr],
    ]) {
      let partial = '';
      from.on('data', (chunk) => {
        to.write(chunk);
        const lines = (partial + chunk).split('\n');
        partial = lines.pop();
        const reports = lines.filter((line) => REPORT.test(line));
        if (reports.length > 0) printedReports.set(reportsOf, [...(printedReports.get(reportsOf) ?? []), ...reports]);
      });
    }
    current.once('error', reject);
    current.once('exit', (status, signal) => {
      current = undefined;
      if (interrupted) reject(new Error(`asan: interrupted (${interrupted})`));
      else resolve(status ?? signal);
    });
  });
}

async function run(command, commandArgs, options) {
  const status = await spawned(command, commandArgs, options);
  if (status !== 0) throw new Error(`${command} ${commandArgs.join(' ')} failed (${status})`);
}

// 2. The proof that the build is sanitized: every object of every target calls ASan, and every
//    library the suites load calls ASan and UBSan. Prints the counts and a FAILED line for each
//    file that does not; returns how many do not.
function checkInstrumented() {
  const missing = [];
  let objects = 0;
  let libraries = 0;
  let missingObjects = 0;
  for (const pkg of nativePackages) {
    const sanitized = join(pkg.dir, 'build-asan');
    for (const object of objectFilesOf(sanitized)) {
      objects++;
      if (sanitizerTraces(object).asan) continue;
      missing.push(`${relative(root, object)} (no __asan_init)`);
      missingObjects++;
    }
    for (const file of outputsOf(join(pkg.dir, 'build'))) {
      libraries++;
      if (!existsSync(join(sanitized, file))) {
        missing.push(`${relative(root, join(sanitized, file))} (not built)`);
        continue;
      }
      const { asan, ubsan } = sanitizerTraces(join(sanitized, file));
      const lacks = [asan ? '' : 'no __asan_init', ubsan ? '' : 'no __ubsan_handle_*'].filter(Boolean);
      if (lacks.length > 0) missing.push(`${relative(root, join(sanitized, file))} (${lacks.join(', ')})`);
    }
  }
  const missingLibraries = missing.length - missingObjects;
  console.log(
    `asan: ${objects - missingObjects} of ${objects} objects and ${libraries - missingLibraries} of ${libraries} ` +
      'addons and libraries instrumented (ASan and UBSan)',
  );
  for (const file of missing) console.log(`FAILED asan: not instrumented: ${file}`);
  if (missing.length > 0)
    console.log('asan: a stale file of an older build? Remove <package>/build-asan/ and run again');
  return missing.length;
}

// 1. The normal builds (so that every saved file is current), then the sanitized ones. `configure`
//    each time: `compile` configures a folder only once, so a changed option would never reach it.
async function buildSanitized() {
  console.log('asan: building (normal, then sanitized into build-asan/)');
  await run(join(root, 'node_modules', '.bin', 'turbo'), ['run', 'build', '--output-logs=errors-only'], { cwd: root });
  const cmakeJs = join(root, 'node_modules', '.bin', 'cmake-js');
  const options = [...sanitizedBuildOptions('build-asan'), '--log-level', 'warn'];
  for (const pkg of nativePackages) {
    await run(cmakeJs, ['configure', ...options], { cwd: pkg.dir });
    await run(cmakeJs, ['build', ...options, '--parallel', '2'], { cwd: pkg.dir });
  }
}

// 3. The sanitized files over the normal ones, which are saved first.
function swapIn() {
  let swapped = 0;
  for (const pkg of nativePackages) {
    const sanitized = join(pkg.dir, 'build-asan');
    for (const file of outputsOf(join(pkg.dir, 'build'))) {
      mkdirSync(dirname(join(sanitized, 'normal', file)), { recursive: true });
      copyFileSync(join(pkg.dir, 'build', file), join(sanitized, 'normal', file));
      copyFileSync(join(sanitized, file), join(pkg.dir, 'build', file));
      swapped++;
    }
  }
  console.log(`asan: ${swapped} native files of ${nativePackages.length} packages replaced by sanitized builds`);
}

// The counts of the last line: the tests', with each report and each file not instrumented (or
// left sanitized in the normal build) as a failure; a step that could not run is one failure.
let outcome;
try {
  await buildSanitized();
  const missing = checkInstrumented();
  if (missing > 0) outcome = { passed: 0, failed: missing, skipped: 0 };
  else {
    swapIn();
    outcome = await testAll();
  }
} catch (error) {
  console.error(error.message);
  outcome = { passed: 0, failed: 1, skipped: 0 };
}

// 5. The normal files back, and none of them left sanitized.
const restored = restore();
if (restored > 0) console.log(`asan: ${restored} normal files put back`);
outcome.failed += reportSanitizedNormalFiles();
rmSync(running, { force: true });
console.log(`${outcome.passed} passed, ${outcome.failed} failed, ${outcome.skipped} skipped`);
process.exit(outcome.failed > 0 ? 1 : 0);

// 4. Every suite, with the runtime preloaded and every report written to a file of its package's.
//    The counts, with each report as a failure.
async function testAll() {
  const libasan = execFileSync('gcc', ['-print-file-name=libasan.so'], { encoding: 'utf8' }).trim();
  const libubsan = execFileSync('gcc', ['-print-file-name=libubsan.so'], { encoding: 'utf8' }).trim();
  const environment = (logDir) => ({
    ...process.env,
    LD_PRELOAD: `${libasan} ${libubsan}`,
    // V8 and Node free little at exit: leak reports would be theirs (see asan-suppressions.txt).
    // allocator_may_return_null: a request too large fails as malloc does (the suites ask for 1 PiB).
    ASAN_OPTIONS: [
      'detect_leaks=0',
      'allocator_may_return_null=1',
      `log_path=${join(logDir, 'asan')}`,
      `suppressions=${suppressions}`,
    ].join(':'),
    UBSAN_OPTIONS: `halt_on_error=1:print_stacktrace=1:log_path=${join(logDir, 'ubsan')}:suppressions=${suppressions}`,
    RMMJS_TEST_BACKENDS: backends.join(','),
    RMMJS_TEST_RESULTS_DIR: RESULTS,
  });
  // The runtime is in the process and the addon loaded is the sanitized one (else nothing is checked).
  const probe = `await import('@rmmjs/core'); const maps = (await import('node:fs')).readFileSync('/proc/self/maps', 'utf8');
    console.log(JSON.stringify({ asan: maps.includes('libasan'), core: maps.match(/\\S*rmmjs_core\\.node/)?.[0] }));`;
  const probed = execFileSync(process.execPath, ['--input-type=module', '-e', probe], {
    cwd: join(root, 'packages', 'core'),
    env: { ...environment(join(logs, 'probe')), RMMJS_DISABLE_CUDA: '1' },
    encoding: 'utf8',
  });
  const { asan, core } = JSON.parse(probed);
  const coreSanitized =
    core !== undefined &&
    readFileSync(core).equals(readFileSync(join(root, 'packages', 'core', 'build-asan', 'Release', 'rmmjs_core.node')));
  if (!asan || !coreSanitized) throw new Error(`asan: the sanitizer is not active in Node (${probed.trim()})`);
  console.log('asan: the runtime is preloaded and the sanitized addons load');

  const runner = join(root, 'tooling', 'test-helpers', 'bin', 'rmmjs-test.js');
  const started = Date.now();
  const tested = testedPackages().filter((pkg) => selected(pkg.name));
  const logDirOf = (pkg) => join(logs, pkg.name.replace(/^@/, '').replace(/\//g, '-'));
  for (const pkg of tested) {
    console.log(`\n=== ${pkg.name} (asan)`);
    reportsOf = pkg.name;
    mkdirSync(logDirOf(pkg), { recursive: true });
    await spawned(process.execPath, [runner], { cwd: pkg.dir, env: environment(logDirOf(pkg)) });
  }
  const minutes = ((Date.now() - started) / 60000).toFixed(1);

  // The summary: tests, then reports per package (a log with warnings only, such as
  // allocator_may_return_null's "failed to allocate", is not a report).
  const summary = onlyPackages(summarize(backends, RESULTS), selected);
  printSummary(summary);
  const reportFiles = (dir) =>
    existsSync(dir)
      ? readdirSync(dir)
          .map((name) => join(dir, name))
          .filter((file) => REPORT.test(readFileSync(file, 'utf8')))
      : [];
  const reports = tested.map((pkg) => {
    const printed = printedReports.get(pkg.name) ?? [];
    const files = reportFiles(logDirOf(pkg));
    return { name: pkg.name, files, printed, count: files.length + printed.filter((l) => REPORT_START.test(l)).length };
  });
  const count = reports.reduce((sum, r) => sum + r.count, 0);
  const width = Math.max(7, ...tested.map((pkg) => pkg.name.length));
  console.log(`\n${'package'.padEnd(width)}  sanitizer reports`);
  for (const r of reports) console.log(`${r.name.padEnd(width)}  ${r.count}`);
  for (const r of reports.filter((r) => r.count > 0))
    console.log(`FAILED ${r.name} (asan) ${r.count} sanitizer reports`);
  for (const report of reports.flatMap((r) => r.files).slice(0, 10)) {
    console.log(`\n--- ${relative(root, report)}\n${readFileSync(report, 'utf8').slice(0, 6000)}`);
  }
  for (const r of reports.filter((r) => r.printed.length > 0)) {
    console.log(`\n--- printed (${r.name})\n${r.printed.slice(0, 50).join('\n')}`);
  }
  const { passed, failed, skipped } = summary.totals;
  console.log(
    `asan: ${passed} passed, ${failed} failed, ${skipped} skipped (${backends.join(', ')}) in ${minutes} min; ` +
      `${count} sanitizer reports` +
      (count ? ` (in ${relative(root, logs)}/ and printed)` : ''),
  );
  return { passed, failed: failed + count, skipped };
}
