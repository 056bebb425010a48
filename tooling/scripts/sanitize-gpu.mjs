// The GPU suites under NVIDIA's compute-sanitizer (memcheck, every child process, device leak
// check): each package's suite as `test-gpu.mjs` runs it, with the sanitizer's reports written to
// files, then one table of what it found per package. Used on a GPU machine:
//   node tooling/scripts/sanitize-gpu.mjs [name,name,...]   (as workspace.mjs's packageSelector reads them)
// Environment: COMPUTE_SANITIZER (the binary; default: on PATH, else /usr/local/cuda/bin),
// RMMJS_SANITIZE_LOGS (the reports' folder; default .sanitizer-logs/), RMMJS_SANITIZE_TIMEOUT_S
// (per package; default 600). Exits non-zero on a memory error, a leak or a failed test. CUDA API
// errors are listed, not failed: the error-path tests provoke some on purpose. The suites see
// RMMJS_TEST_COMPUTE_SANITIZER=1 (test-helpers' underComputeSanitizer()) and skip what leaves device
// memory to the driver on purpose (a child ending in process.exit()).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseCommandLine } from './arguments.mjs';
import { onlyPackages, printSummary, summarize } from './summarize.mjs';
import { packageSelector, root, testedPackages } from './workspace.mjs';

const { positionals } = parseCommandLine('sanitize-gpu', {}, { positionals: { what: 'one list of packages', max: 1 } });
const selected = packageSelector(positionals[0]);
const sanitizer =
  process.env.COMPUTE_SANITIZER ??
  (spawnSync('sh', ['-c', 'command -v compute-sanitizer']).stdout?.toString().trim() ||
    '/usr/local/cuda/bin/compute-sanitizer');
const logs = process.env.RMMJS_SANITIZE_LOGS ?? join(root, '.sanitizer-logs');
const timeoutMs = Number(process.env.RMMJS_SANITIZE_TIMEOUT_S ?? 600) * 1000;
const RESULTS = '.test-results-sanitizer';
const runner = join(root, 'tooling', 'test-helpers', 'bin', 'rmmjs-test.js');

rmSync(logs, { recursive: true, force: true });
mkdirSync(logs, { recursive: true });
console.log(spawnSync(sanitizer, ['--version']).stdout?.toString().trim().split('\n').pop() ?? sanitizer);

const rows = [];
for (const pkg of testedPackages()) {
  if (!selected(pkg.name)) continue;
  const prefix = pkg.name.replace(/^@/, '').replace(/\//g, '-');
  console.log(`\n=== ${pkg.name} (gpu, compute-sanitizer memcheck)`);
  const started = Date.now();
  const run = spawnSync(
    sanitizer,
    [
      '--tool',
      'memcheck',
      '--target-processes',
      'all',
      '--leak-check',
      'full',
      '--log-file',
      join(logs, `${prefix}.%p.log`),
      process.execPath,
      runner,
    ],
    {
      cwd: pkg.dir,
      stdio: 'inherit',
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
      env: {
        ...process.env,
        RMMJS_TEST_BACKENDS: 'gpu',
        RMMJS_TEST_RESULTS_DIR: RESULTS,
        RMMJS_TEST_COMPUTE_SANITIZER: '1',
      },
    },
  );
  rows.push({
    name: pkg.name,
    seconds: (Date.now() - started) / 1000,
    timedOut: run.error?.code === 'ETIMEDOUT',
    ...reports(prefix),
  });
}

// What the sanitizer wrote for one package, over all its processes.
function reports(prefix) {
  const found = { memory: 0, leaks: 0, api: new Map(), processes: 0, examples: [] };
  for (const file of readdirSync(logs).filter((f) => f.startsWith(`${prefix}.`))) {
    found.processes++;
    const text = readFileSync(join(logs, file), 'utf8');
    for (const block of text.split(/\n(?=={9} [A-Z])/)) {
      const api = /Program hit (\S+) \(error \d+\) due to "[^"]*" on CUDA API call to (\w+)/.exec(block);
      if (api) {
        const key = `${api[2]}: ${api[1]}`;
        found.api.set(key, (found.api.get(key) ?? 0) + 1);
      } else if (/Leaked [\d,]+ bytes/.test(block)) {
        found.leaks++;
        if (found.examples.length < 5) found.examples.push(block.trim().split('\n').slice(0, 8).join('\n'));
      } else if (
        /^========= (Invalid|Out-of-range|Misaligned|Malloc|Free|Device heap|Cuda|Barrier|Hardware)/m.test(block)
      ) {
        found.memory++;
        if (found.examples.length < 5) found.examples.push(block.trim().split('\n').slice(0, 8).join('\n'));
      }
    }
  }
  return found;
}

console.log('\ncompute-sanitizer memcheck (leak check full), per package:');
console.log(
  `${'package'.padEnd(26)} ${'procs'.padStart(5)} ${'memory'.padStart(6)} ${'leaks'.padStart(5)} ${'api'.padStart(5)} ${'seconds'.padStart(8)}`,
);
for (const r of rows) {
  const api = [...r.api.values()].reduce((a, b) => a + b, 0);
  console.log(
    `${r.name.padEnd(26)} ${String(r.processes).padStart(5)} ${String(r.memory).padStart(6)} ${String(r.leaks).padStart(5)} ${String(api).padStart(5)} ${r.seconds.toFixed(0).padStart(8)}${r.timedOut ? ' TIMED OUT' : ''}`,
  );
  for (const [call, count] of r.api) console.log(`    api error ${call} x${count}`);
  for (const example of r.examples) console.log(example.replace(/^/gm, '    '));
}
const summary = onlyPackages(summarize(['gpu'], RESULTS), selected);
printSummary(summary);
const bad = rows.some((r) => r.memory > 0 || r.leaks > 0 || r.timedOut) || summary.totals.failed > 0;
process.exit(bad ? 1 : 0);
