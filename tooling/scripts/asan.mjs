// `pnpm test:asan`: every native part (each package's addon, the fake driver, the test addon) built
// with AddressSanitizer and UndefinedBehaviorSanitizer, then what `pnpm test` runs (every package's
// suite in host mode and on the fake driver) with the sanitizer runtime preloaded into Node. Fails
// on any failed test and on any sanitizer report (reports are written to files, so that one in a
// child process whose exit status nobody checks still counts). See tooling/stress/README.md.
//   node tooling/scripts/asan.mjs [package,...]   (as workspace.mjs's packageSelector reads them)
//   node tooling/scripts/asan.mjs --restore       (puts the normal builds back after an interrupted run)
// The sanitized builds go to <package>/build-asan/ and are copied over build/ for the tests only;
// the normal files are kept in build-asan/normal/ and put back at the end, whatever happens.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCommandLine } from './arguments.mjs';
import { onlyPackages, printSummary, summarize } from './summarize.mjs';
import { packageSelector, root, testedPackages, workspacePackages } from './workspace.mjs';

const SANITIZE = '-fsanitize=address,undefined -fno-omit-frame-pointer -g';
const RESULTS = '.test-results-asan';
const logs = join(root, '.asan-logs');
const suppressions = fileURLToPath(new URL('./asan-suppressions.txt', import.meta.url));

const { values, positionals } = parseCommandLine(
  'asan',
  { restore: { type: 'boolean' } },
  { positionals: { what: 'one list of packages', max: 1 } },
);
const selected = packageSelector(positionals[0]);
const nativePackages = workspacePackages().filter((p) => existsSync(join(p.dir, 'CMakeLists.txt')));

// The files a normal build makes: build/Release/*.node, build/*.so and the test-only addons,
// build/test-addons/<name>/build/Release/<name>.node.
function outputsOf(dir) {
  const found = [];
  const testAddons = join(dir, 'test-addons');
  const testAddonDirs = existsSync(testAddons)
    ? readdirSync(testAddons).map((name) => join('test-addons', name, 'build', 'Release'))
    : [];
  for (const sub of ['', 'Release', ...testAddonDirs]) {
    const at = join(dir, sub);
    if (!existsSync(at)) continue;
    for (const name of readdirSync(at)) {
      if ((name.endsWith('.node') || name.endsWith('.so')) && statSync(join(at, name)).isFile())
        found.push(join(sub, name));
    }
  }
  return found;
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

if (values.restore) {
  console.log(`asan: ${restore()} normal files put back`);
  process.exit(0);
}
if (restore() > 0) console.log('asan: the normal builds of an interrupted run were put back first');

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
// loaded too, ignore log_path (a child process's output is the test's to check).
const REPORT = /runtime error:|ERROR: \w+Sanitizer|SUMMARY: \w+Sanitizer/;
const printedReports = [];

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
        printedReports.push(...lines.filter((line) => REPORT.test(line)));
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

// 1. The normal builds (so that every saved file is current), then the sanitized ones.
console.log('asan: building (normal, then sanitized into build-asan/)');
await run(join(root, 'node_modules', '.bin', 'turbo'), ['run', 'build', '--output-logs=errors-only'], { cwd: root });
const cmakeJs = join(root, 'node_modules', '.bin', 'cmake-js');
for (const pkg of nativePackages) {
  await run(
    cmakeJs,
    [
      'compile',
      '--out',
      'build-asan',
      '--parallel',
      '2',
      '--log-level',
      'warn',
      `--CDCMAKE_CXX_FLAGS=${SANITIZE}`,
      `--CDCMAKE_C_FLAGS=${SANITIZE}`,
      '--CDCMAKE_SHARED_LINKER_FLAGS=-fsanitize=address,undefined',
    ],
    { cwd: pkg.dir },
  );
}

// 2. The sanitized files over the normal ones, which are saved first.
let swapped = 0;
const putBack = () => {
  const restored = restore();
  if (restored > 0) console.log(`asan: ${restored} normal files put back`);
};

let failed = true;
try {
  for (const pkg of nativePackages) {
    const sanitized = join(pkg.dir, 'build-asan');
    for (const file of outputsOf(join(pkg.dir, 'build'))) {
      if (!existsSync(join(sanitized, file)))
        throw new Error(`asan: ${relative(root, join(sanitized, file))} was not built`);
      mkdirSync(dirname(join(sanitized, 'normal', file)), { recursive: true });
      copyFileSync(join(pkg.dir, 'build', file), join(sanitized, 'normal', file));
      copyFileSync(join(sanitized, file), join(pkg.dir, 'build', file));
      swapped++;
    }
  }
  console.log(`asan: ${swapped} native files of ${nativePackages.length} packages replaced by sanitized builds`);

  // 3. Every suite, with the runtime preloaded and every report written to a file of its own.
  rmSync(logs, { recursive: true, force: true });
  mkdirSync(logs, { recursive: true });
  const libasan = execFileSync('gcc', ['-print-file-name=libasan.so'], { encoding: 'utf8' }).trim();
  const libubsan = execFileSync('gcc', ['-print-file-name=libubsan.so'], { encoding: 'utf8' }).trim();
  const env = {
    ...process.env,
    LD_PRELOAD: `${libasan} ${libubsan}`,
    // V8 and Node free little at exit: leak reports would be theirs (see asan-suppressions.txt).
    // allocator_may_return_null: a request too large fails as malloc does (the suites ask for 1 PiB).
    ASAN_OPTIONS: [
      'detect_leaks=0',
      'allocator_may_return_null=1',
      `log_path=${join(logs, 'asan')}`,
      `suppressions=${suppressions}`,
    ].join(':'),
    UBSAN_OPTIONS: `halt_on_error=1:print_stacktrace=1:log_path=${join(logs, 'ubsan')}:suppressions=${suppressions}`,
    RMMJS_TEST_RESULTS_DIR: RESULTS,
  };
  // The runtime is in the process and the addon loaded is the sanitized one (else nothing is checked).
  const probe = `await import('@rmmjs/core'); const maps = (await import('node:fs')).readFileSync('/proc/self/maps', 'utf8');
    console.log(JSON.stringify({ asan: maps.includes('libasan'), core: maps.match(/\\S*rmmjs_core\\.node/)?.[0] }));`;
  const probed = execFileSync(process.execPath, ['--input-type=module', '-e', probe], {
    cwd: join(root, 'packages', 'core'),
    env: { ...env, RMMJS_DISABLE_CUDA: '1' },
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
  for (const pkg of testedPackages()) {
    if (!selected(pkg.name)) continue;
    console.log(`\n=== ${pkg.name} (asan)`);
    await spawned(process.execPath, [runner], { cwd: pkg.dir, env });
  }
  const minutes = ((Date.now() - started) / 60000).toFixed(1);

  // 4. The summary: tests, then reports.
  const summary = onlyPackages(summarize(['host', 'fake'], RESULTS), selected);
  printSummary(summary);
  // A log with warnings only (allocator_may_return_null's "failed to allocate") is not a report.
  const reports = readdirSync(logs)
    .map((name) => join(logs, name))
    .filter((file) => REPORT.test(readFileSync(file, 'utf8')));
  for (const report of reports.slice(0, 10)) {
    console.log(`\n--- ${basename(report)}\n${readFileSync(report, 'utf8').slice(0, 6000)}`);
  }
  if (printedReports.length > 0) console.log(`\n--- printed\n${printedReports.slice(0, 50).join('\n')}`);
  const count = reports.length + printedReports.length;
  console.log(
    `asan: ${summary.totals.passed} passed, ${summary.totals.failed} failed, ${summary.totals.skipped} skipped ` +
      `in ${minutes} min; ${count} sanitizer reports` +
      (count ? ` (${reports.length} in ${relative(root, logs)}/, ${printedReports.length} printed)` : ''),
  );
  failed = summary.totals.failed > 0 || count > 0;
} catch (error) {
  console.error(error.message);
} finally {
  putBack();
}
process.exit(failed ? 1 : 0);
