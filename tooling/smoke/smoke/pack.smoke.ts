// The published packages as a user gets them. Packs every public package (`pnpm -r pack`:
// workspace: ranges become versions), checks each tarball (contents, publint, attw, the prebuilds'
// glibc floor), then installs the tarballs into fresh projects outside the repository, with plain
// npm and with pnpm, with no compiler and no cmake on PATH (only node's, npm's and pnpm's), and
// runs them: @rmmjs/core + @rmmjs/pool alone (fixtures/pool.mjs, in host mode and on the fake
// driver), and everything (fixtures/umbrella.mjs, `npx rmmjs demo`, fixtures/consumer.ts compiled
// with `strict` against the published types). Last, with the compiler back on PATH, a source build
// of the installed @rmmjs/pool (cmake-js and node-addon-api in the project, @rmmjs/core beside it),
// which is loaded instead of the prebuild. Each check is a test; one whose check before it failed
// is skipped. With RMMJS_SMOKE_GPU_BUNDLE (`--gpu-bundle FILE`), the npm-installed projects are
// also written to that file for on-gpu.smoke.ts.
//
// attw runs with `--profile esm-only`: the packages are ES modules only (`"type": "module"`, no
// CommonJS build), so the two resolutions that profile leaves out are findings accepted on purpose:
// `node16 (from CJS)` says a `require()` of them resolves to ESM (TypeScript 5.6's view; Node
// >= 20.19, the packages' engines, does load ESM with require() when it has no top-level await),
// and `node10` cannot resolve subpath exports (`@rmmjs/core/addon`), which that resolution, which
// predates `exports`, never reads.
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CONSUMER_PRINTS,
  copyFixtures,
  DEMO_REPORT,
  FAKE,
  fakeDriver,
  HOST,
  kib,
  packages,
  root,
  run,
  smokeDir,
  versions,
  type PublicPackage,
} from './project.js';

const temp = smokeDir();
const tarballs = join(temp, 'tarballs');
const unpacked = join(temp, 'unpacked');
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
const gpuBundle = process.env.RMMJS_SMOKE_GPU_BUNDLE;

// A PATH with node, npm, npx and pnpm only (and sh, which npx runs bins with): no compiler, no
// cmake, no make. What `pnpm smoke` passes down (npm_config_*, npm_package_*, ...) is not the user's.
const pathBin = join(temp, 'bin');
const env: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !/^(npm_|pnpm_|INIT_CWD$|CC$|CXX$)/i.test(key)),
);
env.PATH = pathBin;

/** Node in a project, on one of its fixture programs, in host mode or on the fake driver. */
function node(dir: string, program: string, extra: NodeJS.ProcessEnv) {
  copyFixtures(dir, program);
  return run('node', [program], { cwd: dir, env: { ...env, ...extra } }).trim();
}

// What the checks before have made; a check that needs what failed is skipped.
const done = new Set<string>();

it(`pnpm -r pack (${packages.length} public packages)`, () => {
  mkdirSync(tarballs);
  run('pnpm', ['-r', ...packages.flatMap((p) => ['--filter', p.name]), 'pack', '--pack-destination', tarballs], {
    cwd: root,
  });
  expect(packages.filter((p) => !existsSync(join(tarballs, p.tarball))).map((p) => p.tarball)).toEqual([]);
  done.add('packed');
});

describe.each(packages)('$name', (pkg: PublicPackage) => {
  it('has its files, a prebuild if native, no build/, and is publint and attw clean', (context) => {
    context.skip(!done.has('packed'), 'not packed');
    const file = join(tarballs, pkg.tarball);
    const dir = join(unpacked, pkg.tarball.replace(/\.tgz$/, ''));
    mkdirSync(dir, { recursive: true });
    run('tar', ['-xzf', file, '-C', dir, '--strip-components=1'], { cwd: temp });
    expect(readFileSync(join(dir, 'package.json'), 'utf8'), 'package.json still has a workspace: range').not.toContain(
      'workspace:',
    );
    expect(existsSync(join(dir, 'build')), 'ships build/ (the prebuilds are in prebuilds/)').toBe(false);
    let prebuilt = '';
    if (pkg.native) {
      const at = join(dir, 'prebuilds', 'linux-x64');
      const addons = existsSync(at) ? readdirSync(at).filter((name) => name.endsWith('.napi.glibc.node')) : [];
      expect(addons, 'prebuilds/linux-x64/ has one *.napi.glibc.node file').toHaveLength(1);
      prebuilt = `, prebuilds/linux-x64/${readdirSync(at).join(' ')}`;
    }
    run(bin('publint'), ['run', '--strict', file], { cwd: temp });
    run(bin('attw'), ['--profile', 'esm-only', '--no-definitely-typed', '--no-color', '--format', 'ascii', file], {
      cwd: temp,
    });
    console.log(`${pkg.name} ${kib(statSync(file).size)}: publint clean, attw clean (esm-only)${prebuilt}`);
  });
});

it('the prebuilds in the tarballs are within the glibc floor (check-glibc)', (context) => {
  context.skip(!done.has('packed'), 'not packed');
  const output = run(
    process.execPath,
    [
      join(root, 'tooling', 'scripts', 'check-glibc.mjs'),
      ...readdirSync(unpacked).map((dir) => join(unpacked, dir, 'prebuilds')),
    ],
    { cwd: temp },
  );
  console.log(output.trim().split('\n').at(-1));
});

it('a PATH without a compiler or cmake', () => {
  mkdirSync(pathBin);
  const find = (name: string) =>
    (process.env.PATH ?? '')
      .split(delimiter)
      .map((dir) => join(dir, name))
      .find((path) => {
        try {
          accessSync(path, constants.X_OK);
          return true;
        } catch {
          return false;
        }
      });
  symlinkSync(process.execPath, join(pathBin, 'node'));
  for (const tool of ['npm', 'npx', 'pnpm', 'sh']) {
    const path = find(tool);
    expect(path, `${tool} is not on PATH`).toBeDefined();
    symlinkSync(path!, join(pathBin, tool));
  }
  const tools = ['cmake', 'make', 'ninja', 'cc', 'c++', 'gcc', 'g++', 'clang', 'clang++'];
  expect(tools.filter((tool) => existsSync(join(pathBin, tool)))).toEqual([]);
  done.add('path');
});

// Fresh projects, installed from the tarballs with npm and with pnpm.
const spec = (pkg: PublicPackage) => `file:${join(tarballs, pkg.tarball)}`;

function project(manager: string, kind: string, members: PublicPackage[], devDependencies = {}) {
  const dir = join(temp, `${manager}-${kind}`);
  mkdirSync(dir);
  const dependencies = Object.fromEntries(members.map((p) => [p.name, spec(p)]));
  const manifest: Record<string, unknown> = {
    name: `smoke-${manager}-${kind}`,
    private: true,
    type: 'module',
    dependencies,
    devDependencies,
  };
  if (manager === 'npm') manifest.overrides = dependencies;
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  if (manager === 'pnpm') {
    // Every rmmjs package from its tarball, also where another depends on it (`rmmjs` on @rmmjs/*).
    const overrides = packages.map((p) => `  '${p.name}': '${spec(p)}'`).join('\n');
    writeFileSync(join(dir, 'pnpm-workspace.yaml'), `overrides:\n${overrides}\n`);
  }
  return dir;
}

function install(manager: string, dir: string) {
  const args = manager === 'npm' ? ['install', '--no-audit', '--no-fund'] : ['install'];
  run(manager, args, { cwd: dir, env });
  const installed = readdirSync(join(dir, 'node_modules', '@rmmjs')).map((name) => `@rmmjs/${name}`);
  if (existsSync(join(dir, 'node_modules', 'rmmjs'))) installed.push('rmmjs');
  const built = installed.filter((name) => existsSync(join(dir, 'node_modules', name, 'build')));
  expect(built, 'build/ in these: something compiled at install').toEqual([]);
  console.log(`${installed.length} rmmjs packages, none built at install`);
}

describe.each(['npm', 'pnpm'])('%s', (manager) => {
  const minimal = join(temp, `${manager}-core-pool`);
  const everything = join(temp, `${manager}-all`);

  it('install @rmmjs/core @rmmjs/pool', (context) => {
    context.skip(!done.has('packed') || !done.has('path'), 'not packed, or no PATH without a compiler');
    const members = packages.filter((p) => ['@rmmjs/core', '@rmmjs/pool'].includes(p.name));
    install(manager, project(manager, 'core-pool', members));
    done.add(minimal);
  });

  it('(a) pool in host mode', (context) => {
    context.skip(!done.has(minimal), 'not installed');
    console.log(node(minimal, 'pool.mjs', HOST));
  });

  it('(a) pool on the fake driver', (context) => {
    context.skip(!done.has(minimal), 'not installed');
    expect(existsSync(fakeDriver), `${relative(root, fakeDriver)} is missing: run \`pnpm build\``).toBe(true);
    console.log(node(minimal, 'pool.mjs', FAKE));
  });

  // What the load error says to do where no prebuild fits: build the installed package from
  // source, with the compiler and cmake (the full PATH), cmake-js and node-addon-api in the project.
  it.runIf(manager === 'npm')(
    `(e) source build of the installed @rmmjs/pool (cmake-js ${versions.cmakeJs}, only core beside it)`,
    (context) => {
      context.skip(!done.has(minimal), 'not installed');
      const fullPath = { ...env, PATH: process.env.PATH };
      const prebuild = join(
        minimal,
        'node_modules',
        '@rmmjs',
        'pool',
        'prebuilds',
        'linux-x64',
        'rmmjs_pool.napi.glibc.node',
      );
      const before = statSync(prebuild).mtimeMs;
      const tools = [`cmake-js@${versions.cmakeJs}`, `node-addon-api@${versions.nodeAddonApi}`];
      run('npm', ['install', '--no-audit', '--no-fund', '--save-dev', ...tools], { cwd: minimal, env: fullPath });
      run('npx', ['cmake-js', 'compile', '--directory', 'node_modules/@rmmjs/pool', '--log-level', 'warn'], {
        cwd: minimal,
        env: fullPath,
      });
      expect(statSync(prebuild).mtimeMs, 'a source build under node_modules/ wrote its prebuild').toBe(before);
      const output = node(minimal, 'pool.mjs', {
        ...HOST,
        SMOKE_POOL_FROM: '/@rmmjs/pool/build/Release/rmmjs_pool.node',
      });
      console.log(`build/Release/rmmjs_pool.node loaded first: ${output}`);
    },
  );

  it(`install every package, typescript ${versions.typescript}`, (context) => {
    context.skip(!done.has('packed') || !done.has('path'), 'not packed, or no PATH without a compiler');
    const tools = { typescript: versions.typescript, '@types/node': versions.typesNode };
    install(manager, project(manager, 'all', packages, tools));
    done.add(everything);
  });

  it("(b) import * as rmm from 'rmmjs'", (context) => {
    context.skip(!done.has(everything), 'not installed');
    console.log(node(everything, 'umbrella.mjs', HOST));
  });

  it('(c) npx rmmjs demo (host mode)', (context) => {
    context.skip(!done.has(everything), 'not installed');
    const output = run('npx', ['rmmjs', 'demo'], { cwd: everything, env: { ...env, ...HOST } });
    expect(output, 'no profiler report').toMatch(DEMO_REPORT);
    console.log(`${output.trim().split('\n').length} lines, profiler report printed`);
  });

  it('(d) TypeScript consumer (strict) against the published types', (context) => {
    context.skip(!done.has(everything), 'not installed');
    copyFixtures(everything, 'consumer.ts', 'tsconfig.json');
    run('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: everything, env });
    const output = run('node', ['out/consumer.js'], { cwd: everything, env: { ...env, ...HOST } }).trim();
    expect(output).toBe(CONSUMER_PRINTS);
    console.log(`tsc clean, ran: ${output}`);
    done.add(`${everything} compiled`);
  });

  it.runIf(manager === 'npm' && gpuBundle !== undefined)(
    `bundle for the GPU machine${gpuBundle ? `: ${gpuBundle}` : ''}`,
    (context) => {
      context.skip(!done.has(`${everything} compiled`) || !done.has(minimal), 'not installed, or not compiled');
      run(
        'tar',
        [
          '-cJf',
          gpuBundle!,
          '--exclude=node_modules/typescript',
          '--exclude=node_modules/@types',
          '--exclude=node_modules/@rmmjs/*/build', // (e)'s source build: the GPU runs the prebuilds
          '-C',
          temp,
          'npm-core-pool',
          'npm-all',
        ],
        { cwd: temp },
      );
      console.log(kib(statSync(gpuBundle!).size));
    },
  );
});
