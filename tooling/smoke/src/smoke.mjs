// `pnpm smoke` (`node tooling/smoke/src/smoke.mjs [--keep]`, after `pnpm build`): the published
// packages as a user gets them, smoke/pack.smoke.ts run by vitest in a folder of its own, then one
// line per failed check (`FAIL <check>` and the first lines of why) and the last line, `smoke: all
// N checks ok in S s` or `smoke: N of M checks FAILED in S s (kept DIR)`. Exits 1 on any failure.
//   --keep             keeps the folder (a failed run always does)
//   --gpu-bundle FILE  also writes the npm-installed projects to FILE (.tar.xz) for a GPU machine
//   --on-gpu FILE      there, unpacks them and runs them on the real driver (smoke/on-gpu.smoke.ts)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitWithUsage, parseCommandLine } from '@rmmjs/scripts/arguments.mjs';
import { summarize } from '@rmmjs/scripts/summarize.mjs';

const { values: options } = parseCommandLine('smoke', {
  keep: { type: 'boolean' },
  'gpu-bundle': { type: 'string', value: 'FILE' },
  'on-gpu': { type: 'string', value: 'FILE' },
});
if (options['gpu-bundle'] && options['on-gpu']) {
  exitWithUsage('smoke', '--gpu-bundle (here) and --on-gpu (on the GPU machine) are runs of their own');
}

const started = performance.now();
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const RESULTS = '.smoke-results';
const vitest = join(
  dirname(createRequire(join(packageDir, 'package.json')).resolve('vitest/package.json')),
  'vitest.mjs',
);
const temp = mkdtempSync(join(tmpdir(), 'rmmjs-smoke-'));
const suite = options['on-gpu'] ? 'on-gpu.smoke' : 'pack.smoke';
const env = { ...process.env, RMMJS_SMOKE_DIR: temp };
if (options['gpu-bundle']) env.RMMJS_SMOKE_GPU_BUNDLE = resolve(options['gpu-bundle']);
if (options['on-gpu']) env.RMMJS_SMOKE_ON_GPU = resolve(options['on-gpu']);
const vitestRun = spawnSync(
  process.execPath,
  [
    vitest,
    'run',
    '--config',
    join(packageDir, 'vitest.config.js'),
    '--root',
    packageDir,
    '--reporter=verbose',
    '--reporter=json',
    `--outputFile.json=${join(packageDir, RESULTS, 'smoke.json')}`,
    suite,
  ],
  { stdio: 'inherit', env },
);

// The report read as pnpm test reads a package's (a missing report is one failure).
const { totals, failures } = summarize(['smoke'], RESULTS, [{ name: '@rmmjs/smoke', dir: packageDir }]);
for (const failure of failures) {
  console.log(`FAIL ${failure.file ? `${failure.file} > ` : ''}${failure.test}`);
  for (const line of failure.message) console.log(`     ${line}`);
}
const seconds = ((performance.now() - started) / 1000).toFixed(0);
const failed = totals.failed > 0 || vitestRun.status !== 0;
if (failed) {
  const count = Math.max(totals.failed, 1);
  console.log(`smoke: ${count} of ${totals.passed + count} checks FAILED in ${seconds} s (kept ${temp})`);
  process.exit(1);
}
if (options.keep) console.log(`smoke: kept ${temp}`);
else rmSync(temp, { recursive: true, force: true });
console.log(`smoke: all ${totals.passed} checks ok in ${seconds} s`);
