// Runs every package's suite against the real CUDA driver, one test file at a time, with
// nothing but Node and the installed node_modules (no pnpm, no turbo), then prints the summed
// line. Used on a GPU machine: `node tooling/scripts/test-gpu.mjs [name,name,...]` (as
// workspace.mjs's packageSelector reads them; all by default).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseCommandLine } from './arguments.mjs';
import { onlyPackages, printSummary, summarize } from './summarize.mjs';
import { packageSelector, root, testedPackages } from './workspace.mjs';

const { positionals } = parseCommandLine('test-gpu', {}, { positionals: { what: 'one list of packages', max: 1 } });
const selected = packageSelector(positionals[0]);
const runner = join(root, 'tooling', 'test-helpers', 'bin', 'rmmjs-test.js');
// Seconds per package, printed before the summed line: what a run costs on a lent GPU.
const seconds = [];
for (const pkg of testedPackages()) {
  if (!selected(pkg.name)) continue;
  console.log(`\n=== ${pkg.name} (gpu)`);
  const started = Date.now();
  spawnSync(process.execPath, [runner], {
    cwd: pkg.dir,
    stdio: 'inherit',
    env: { ...process.env, RMMJS_TEST_BACKENDS: 'gpu' },
  });
  seconds.push(`${pkg.name.replace(/^@rmmjs\//, '')} ${((Date.now() - started) / 1000).toFixed(0)}`);
}
console.log(`\ntest-gpu: seconds per package: ${seconds.join(', ')}`);
const summary = onlyPackages(summarize(['gpu']), selected);
printSummary(summary);
process.exit(summary.totals.failed > 0 ? 1 : 0);
