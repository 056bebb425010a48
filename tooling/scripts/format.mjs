#!/usr/bin/env node
// Formats the tracked sources (Prettier for TypeScript, JavaScript and JSON; clang-format for C
// and C++), or with --check lists the files that are not formatted and exits 1.
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseCommandLine } from './arguments.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { check = false } = parseCommandLine('format', { check: { type: 'boolean' } }).values;
const bin = (name) => `${root}node_modules/.bin/${name}`;
const tracked = (...patterns) =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...patterns], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean);

let failed = false;

const prettier = spawnSync(bin('prettier'), [check ? '--check' : '--write', '--log-level', 'warn', '.'], {
  cwd: root,
  stdio: 'inherit',
});
if (prettier.status !== 0) failed = true;

const native = tracked('*.c', '*.cc', '*.h', '*.hpp');
for (let i = 0; i < native.length; i += 50) {
  const batch = native.slice(i, i + 50);
  const args = check ? ['--dry-run', '--Werror', '--style=file', ...batch] : ['-i', '--style=file', ...batch];
  const clang = spawnSync(bin('clang-format'), args, { cwd: root, encoding: 'utf8' });
  if (clang.status !== 0) {
    failed = true;
    const files = new Set([...clang.stderr.matchAll(/^(\S+?):\d+:\d+: error/gm)].map((m) => m[1]));
    for (const file of files) console.error(`[warn] ${file}`);
    if (files.size === 0) process.stderr.write(clang.stderr);
  }
}

if (failed && check) console.error('Not formatted: run `pnpm format`.');
process.exit(failed ? 1 : 0);
