// `pnpm test`: builds everything, runs every package's suite in host mode and on the fake
// driver (turbo, --continue so that one failure does not hide the others), then prints the
// summed line from the JSON reports. Exits non-zero on any failure.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseCommandLine } from './arguments.mjs';
import { printSummary, summarize } from './summarize.mjs';
import { root } from './workspace.mjs';

parseCommandLine('test', {});

const turbo = join(root, 'node_modules', '.bin', 'turbo');
// The tests' cache key includes the Node version (RMMJS_TEST_NODE is in the test task's env in
// turbo.json): results of one Node never stand in for another's.
const env = { ...process.env, RMMJS_TEST_NODE: process.version };
const run = (args) => spawnSync(turbo, args, { cwd: root, stdio: 'inherit', env }).status;

const built = run(['run', 'build', '--output-logs=errors-only']);
const tested = built === 0 ? run(['run', 'test', '--continue', '--output-logs=full', '--log-order=grouped']) : 1;
const summary = summarize((process.env.RMMJS_TEST_BACKENDS ?? 'host,fake').split(','));
printSummary(summary);
if (built !== 0) console.error('test: the build failed');
process.exit(built !== 0 || tested !== 0 || summary.totals.failed > 0 ? 1 : 0);
