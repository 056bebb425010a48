// Fails when a prebuilt addon needs a newer glibc (or libstdc++) than the floor @rmmjs/core states
// (packages/core/src/supported-platforms.ts, built to dist/): the highest GLIBC_ and GLIBCXX_
// symbol versions `objdump -T` lists for each .node and .so under prebuilds/.
//   node tooling/scripts/check-glibc.mjs [dir...]   (default: every package's prebuilds/)
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseCommandLine } from './arguments.mjs';
import { root, workspacePackages } from './workspace.mjs';

const { positionals: dirs } = parseCommandLine('check-glibc', {}, { positionals: { what: 'folders' } });

const floorsModule = join(root, 'packages/core/dist/supported-platforms.js');
if (!existsSync(floorsModule)) {
  console.error(`check-glibc: ${relative(root, floorsModule)} is missing: run \`pnpm build\` first`);
  process.exit(1);
}
const { supportedPlatforms } = await import(pathToFileURL(floorsModule).href);
const floors = { GLIBC: supportedPlatforms.glibc, GLIBCXX: supportedPlatforms.glibcxx };

const compare = (a, b) => {
  const [x, y] = [a.split('.').map(Number), b.split('.').map(Number)];
  for (let i = 0; i < Math.max(x.length, y.length); i++)
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
};

function binariesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return binariesUnder(path);
    return /\.(node|so)$/.test(name) ? [path] : [];
  });
}

const files = (
  dirs.length > 0
    ? dirs
    : workspacePackages()
        .filter((p) => !p.manifest.private)
        .map((p) => join(p.dir, 'prebuilds'))
).flatMap(binariesUnder);
if (files.length === 0) {
  console.error('check-glibc: no prebuilds found (run `pnpm build` first)');
  process.exit(1);
}

let failed = 0;
for (const file of files) {
  let symbols;
  try {
    symbols = execFileSync('objdump', ['-T', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  } catch (error) {
    console.error(`check-glibc: objdump -T ${file} failed (binutils installed?): ${error.message}`);
    process.exit(1);
  }
  const needs = {};
  for (const [, library, version] of symbols.matchAll(/\b(GLIBC|GLIBCXX)_(\d+(?:\.\d+)+)\b/g)) {
    if (!needs[library] || compare(version, needs[library]) > 0) needs[library] = version;
  }
  const over = Object.entries(floors).filter(
    ([library, floor]) => needs[library] && compare(needs[library], floor) > 0,
  );
  const shown = Object.entries(needs)
    .map(([library, version]) => `${library}_${version}`)
    .join(' ');
  const name = relative(root, file).startsWith('..') ? file : relative(root, file);
  if (over.length > 0) {
    failed++;
    const excess = over.map(([library, floor]) => `${library}_${needs[library]} > ${library}_${floor}`).join(', ');
    console.log(`FAIL ${name}: needs ${excess}`);
  } else {
    console.log(`ok   ${name}: ${shown || 'no versioned glibc symbols'}`);
  }
}
console.log(
  `check-glibc: ${files.length - failed} of ${files.length} prebuilds within glibc ${floors.GLIBC} and libstdc++ GLIBCXX_${floors.GLIBCXX}`,
);
process.exit(failed > 0 ? 1 : 0);
