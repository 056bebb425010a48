// `pnpm smoke`: the published packages as a user gets them. Packs every public package (`pnpm -r
// pack`: workspace: ranges become versions), checks each tarball (contents, publint, attw, the
// prebuilds' glibc floor), then installs the tarballs into fresh projects outside the repository,
// with plain npm and with pnpm, with no compiler and no cmake on PATH (only node's, npm's and
// pnpm's), and runs them: @rmmjs/core + @rmmjs/pool alone (a pool in host mode and on the fake
// driver), and everything (`import * as rmm from 'rmmjs'`, `npx rmmjs demo`, a TypeScript consumer
// compiled with `strict` against the published types). Last, with the compiler back on PATH, a
// source build of the installed @rmmjs/pool (cmake-js and node-addon-api in the project, @rmmjs/core
// beside it), which is loaded instead of the prebuild. One line per check; exits 1 on any failure.
//   node tooling/scripts/smoke-pack.mjs [--keep]   (needs `pnpm build`; --keep keeps the temp dir)
// On a GPU machine, which has no npm registry to install from: `--gpu-bundle FILE` here also writes
// the npm-installed projects (without the TypeScript compiler, with the compiled consumer) to FILE
// (.tar.xz); `--on-gpu FILE` there unpacks them and runs (a) to (d) on the real driver.
//
// attw runs with `--profile esm-only`: the packages are ES modules only (`"type": "module"`, no
// CommonJS build), so the two resolutions that profile leaves out are findings accepted on purpose:
// `node16 (from CJS)` says a `require()` of them resolves to ESM (TypeScript 5.6's view; Node
// >= 20.19, the packages' engines, does load ESM with require() when it has no top-level await),
// and `node10` cannot resolve subpath exports (`@rmmjs/core/addon`), which that resolution, which
// predates `exports`, never reads.
import { spawnSync } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { root, workspacePackages } from './workspace.mjs';

const argument = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const keep = process.argv.includes('--keep');
const gpuBundle = argument('--gpu-bundle');
const onGpu = argument('--on-gpu');
const started = performance.now();
const bin = (name) => join(root, 'node_modules', '.bin', name);
const fakeDriver = join(root, 'tooling', 'fake-cuda', 'build', 'libfakecuda.so');
// The versions the repository builds with, for the TypeScript consumer.
const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const typescriptVersion = rootManifest.devDependencies.typescript;
const typesNodeVersion = rootManifest.devDependencies['@types/node'];
const cmakeJsVersion = rootManifest.devDependencies['cmake-js'];
const nodeAddonApiVersion = rootManifest.devDependencies['node-addon-api'];

const packages = workspacePackages()
  .filter((p) => !p.manifest.private && p.dir.startsWith(join(root, 'packages')))
  .map((p) => ({
    ...p,
    tarball: `${p.name.replace(/^@/, '').replace('/', '-')}-${p.manifest.version}.tgz`,
    native: existsSync(join(p.dir, 'CMakeLists.txt')),
  }));

const temp = mkdtempSync(join(tmpdir(), 'rmmjs-smoke-'));
const tarballs = join(temp, 'tarballs');
let passed = 0;
let failed = 0;

class CheckFailure extends Error {}

/** Runs a check; its line says ok (with what it returns) or FAIL (with why). */
function check(what, fn) {
  const start = performance.now();
  try {
    const detail = fn();
    passed++;
    console.log(`ok   ${what}${detail ? `: ${detail}` : ''} (${((performance.now() - start) / 1000).toFixed(1)} s)`);
    return true;
  } catch (error) {
    failed++;
    const why = error instanceof CheckFailure ? error.message : (error?.stack ?? String(error));
    console.log(`FAIL ${what}: ${why.replace(/\n/g, '\n     ')}`);
    return false;
  }
}

function expect(condition, message) {
  if (!condition) throw new CheckFailure(message);
}

/** Runs a command to its end; throws with the end of its output when it fails. */
function run(command, args, { cwd = temp, env = process.env, timeout = 300_000 } = {}) {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout, maxBuffer: 64 << 20 });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  if (result.error || result.status !== 0) {
    const tail = output.trim().split('\n').slice(-25).join('\n');
    throw new CheckFailure(
      `\`${[command, ...args].join(' ')}\` in ${cwd} ${result.error ? `failed: ${result.error.message}` : `exited ${result.status ?? result.signal}`}\n${tail}`,
    );
  }
  return output;
}

const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

// Node with the project's modules, in host mode or on the fake driver.
const node = (dir, script, extra = {}) =>
  run('node', ['--input-type=module', '-e', script], { cwd: dir, env: { ...env, ...extra } });
const PREBUILDS = { SMOKE_CORE_FROM: '/prebuilds/linux-x64/', SMOKE_POOL_FROM: '/prebuilds/linux-x64/' };
const HOST = { RMMJS_DISABLE_CUDA: '1', ...PREBUILDS };
const FAKE = { RMMJS_CUDA_LIBRARY: fakeDriver, ...PREBUILDS };

// (a) A pool of @rmmjs/pool over core's default resource; the addons come from prebuilds/.
const POOL_SCRIPT = `
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { cuda, DeviceBuffer, getCurrentDeviceResource } from '@rmmjs/core';
import { PoolMemoryResource } from '@rmmjs/pool';
const require = createRequire(import.meta.url);
const core = dirname(require.resolve('@rmmjs/core/package.json'));
const nodeGypBuild = createRequire(core + '/package.json')('node-gyp-build');
const from = { core: process.env.SMOKE_CORE_FROM, pool: process.env.SMOKE_POOL_FROM };
for (const [name, dir] of [['core', core], ['pool', dirname(require.resolve('@rmmjs/pool/package.json'))]]) {
  const file = nodeGypBuild.path(dir);
  if (!file.includes(from[name])) throw new Error(name + "'s addon is not from " + from[name] + ': ' + file);
}
const pool = new PoolMemoryResource(getCurrentDeviceResource(), { initialPoolSize: '1 MiB', maximumPoolSize: '4 MiB' });
const sizes = [1, 1000, 65536, 1 << 20];
const ptrs = sizes.map((n) => pool.allocate(n));
sizes.forEach((n, i) => pool.deallocate(ptrs[i], n));
const buffer = new DeviceBuffer({ data: new Uint8Array([7, 8, 9]), mr: pool });
if (buffer.toBytes().join() !== '7,8,9') throw new Error('bytes: ' + buffer.toBytes().join());
buffer.free();
const mode = cuda.isAvailable() ? 'cuda, ' + cuda.getDeviceCount() + ' devices' : 'host';
console.log(mode + ', pool ' + pool.poolSize() + ' bytes, ' + (sizes.length + 1) + ' allocations freed');
pool[Symbol.dispose]();
`;

// (b) The umbrella, with one copy of each package behind it.
const UMBRELLA_SCRIPT = `
import * as rmm from 'rmmjs';
import * as core from '@rmmjs/core';
import { PoolMemoryResource } from '@rmmjs/pool';
if (rmm.DeviceBuffer !== core.DeviceBuffer || rmm.mr.PoolMemoryResource !== PoolMemoryResource)
  throw new Error('two copies of a package');
rmm.reinitialize({ poolAllocator: true, initialPoolSize: '2 MiB' });
const stats = new rmm.mr.StatisticsResourceAdaptor(rmm.mr.getCurrentDeviceResource());
const buffer = new rmm.DeviceBuffer({ size: 4096, mr: stats });
const { currentCount } = stats.allocationCounts;
buffer.free();
console.log(Object.keys(rmm).length + ' exports, ' + Object.keys(rmm.mr).length + ' in rmm.mr, ' + currentCount + ' allocation counted, current ' + rmm.mr.getCurrentDeviceResourceType().name);
`;

// (d) A TypeScript consumer, strict, against the published declarations.
const CONSUMER_TS = `
import { DeviceBuffer, RMMError, getCurrentDeviceResource, type DeviceMemoryResource } from '@rmmjs/core';
import { loadAddon } from '@rmmjs/core/addon';
import { PoolMemoryResource, type PoolMemoryResourceOptions } from '@rmmjs/pool';
import * as rmm from 'rmmjs';

const options: PoolMemoryResourceOptions = { initialPoolSize: '1 MiB', maximumPoolSize: 4 << 20 };
const upstream: DeviceMemoryResource = getCurrentDeviceResource();
const pool = new PoolMemoryResource(upstream, options);
const buffer: DeviceBuffer = new DeviceBuffer({ data: new Uint8Array([1, 2, 3]), mr: pool });
const bytes: Uint8Array = buffer.toBytes();
const ptr: bigint = buffer.ptr;
buffer.free();
const stats = new rmm.mr.StatisticsResourceAdaptor(pool);
const size: number = pool.poolSize();
let argumentCode = '';
try {
  // @ts-expect-error: a pool size is a number or a string (and at run time ERR_INVALID_ARG_TYPE)
  new PoolMemoryResource(upstream, { initialPoolSize: true });
} catch (error) {
  argumentCode = (error as { code?: string }).code ?? '';
}
let code = '';
try {
  loadAddon(import.meta.url, './no-addon-here', 'consumer');
} catch (error) {
  if (error instanceof RMMError) code = error.code;
}
stats[Symbol.dispose]();
pool[Symbol.dispose]();
console.log(\`\${bytes.join()} \${typeof ptr} \${size} \${argumentCode} \${code}\`);
`;
const CONSUMER_TSCONFIG = {
  compilerOptions: {
    strict: true,
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    lib: ['es2022'],
    types: ['node'],
    outDir: 'out',
    skipLibCheck: false,
    noEmitOnError: true,
  },
  include: ['consumer.ts'],
};

if (onGpu) runOnGpu(onGpu);

// 1. The tarballs, as `pnpm publish` would make them.
mkdirSync(tarballs);
const packed = check(`pnpm -r pack (${packages.length} public packages)`, () => {
  run('pnpm', ['-r', ...packages.flatMap((p) => ['--filter', p.name]), 'pack', '--pack-destination', tarballs], {
    cwd: root,
  });
  const missing = packages.filter((p) => !existsSync(join(tarballs, p.tarball))).map((p) => p.tarball);
  expect(missing.length === 0, `missing: ${missing.join(', ')}`);
  return tarballs;
});
if (!packed) finish();

// 2. Each tarball: what it holds, publint and attw.
const unpacked = join(temp, 'unpacked');
for (const pkg of packages) {
  const file = join(tarballs, pkg.tarball);
  check(`${pkg.name} ${kib(statSync(file).size)}`, () => {
    const dir = join(unpacked, pkg.tarball.replace(/\.tgz$/, ''));
    mkdirSync(dir, { recursive: true });
    run('tar', ['-xzf', file, '-C', dir, '--strip-components=1']);
    const manifest = readFileSync(join(dir, 'package.json'), 'utf8');
    expect(!manifest.includes('workspace:'), 'package.json still has a workspace: range');
    expect(!existsSync(join(dir, 'build')), 'ships build/ (the prebuilds are in prebuilds/)');
    let prebuilt = '';
    if (pkg.native) {
      const at = join(dir, 'prebuilds', 'linux-x64');
      const addons = existsSync(at) ? readdirSync(at).filter((name) => name.endsWith('.napi.glibc.node')) : [];
      expect(addons.length === 1, `prebuilds/linux-x64/ has ${addons.length} *.napi.glibc.node files, not 1`);
      prebuilt = `, prebuilds/linux-x64/${readdirSync(at).join(' ')}`;
    }
    run(bin('publint'), ['run', '--strict', file]);
    run(bin('attw'), ['--profile', 'esm-only', '--no-definitely-typed', '--no-color', '--format', 'ascii', file]);
    return `publint clean, attw clean (esm-only)${prebuilt}`;
  });
}

// 3. What the prebuilds in the tarballs need of glibc and libstdc++.
check('prebuilds within the glibc floor (check-glibc)', () => {
  const output = run(process.execPath, [
    join(root, 'tooling', 'scripts', 'check-glibc.mjs'),
    ...readdirSync(unpacked).map((dir) => join(unpacked, dir, 'prebuilds')),
  ]);
  return output
    .trim()
    .split('\n')
    .at(-1)
    .replace(/^check-glibc: /, '');
});

// 4. A PATH with node, npm, npx and pnpm only (and sh, which npx runs bins with): no compiler, no
// cmake, no make.
const pathBin = join(temp, 'bin');
const env = { ...process.env };
for (const key of Object.keys(env)) {
  // What `pnpm smoke` passes down (npm_config_*, npm_package_*, ...) is not the user's.
  if (/^(npm_|pnpm_|INIT_CWD$|CC$|CXX$)/i.test(key)) delete env[key];
}
env.PATH = pathBin;
check('PATH without a compiler or cmake', () => {
  mkdirSync(pathBin);
  const find = (name) =>
    process.env.PATH.split(delimiter)
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
    expect(path, `${tool} is not on PATH`);
    symlinkSync(path, join(pathBin, tool));
  }
  const found = ['cmake', 'make', 'ninja', 'cc', 'c++', 'gcc', 'g++', 'clang', 'clang++'].filter((tool) =>
    existsSync(join(pathBin, tool)),
  );
  expect(found.length === 0, `${found.join(', ')} on PATH`);
  return `PATH=${pathBin} (node, npm, npx, pnpm, sh)`;
});

// 5. Fresh projects, installed from the tarballs with npm and with pnpm.
const spec = (pkg) => `file:${join(tarballs, pkg.tarball)}`;
const named = (...names) => packages.filter((p) => names.includes(p.name));

function project(manager, kind, members, devDependencies = {}) {
  const dir = join(temp, `${manager}-${kind}`);
  mkdirSync(dir);
  const dependencies = Object.fromEntries(members.map((p) => [p.name, spec(p)]));
  // Every rmmjs package from its tarball, also where another depends on it (`rmmjs` on @rmmjs/*).
  const overrides = Object.fromEntries(packages.map((p) => [p.name, spec(p)]));
  const manifest = { name: `smoke-${manager}-${kind}`, private: true, type: 'module', dependencies, devDependencies };
  if (manager === 'npm') manifest.overrides = Object.fromEntries(members.map((p) => [p.name, spec(p)]));
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  if (manager === 'pnpm') {
    writeFileSync(
      join(dir, 'pnpm-workspace.yaml'),
      `overrides:\n${Object.entries(overrides)
        .map(([name, value]) => `  '${name}': '${value}'`)
        .join('\n')}\n`,
    );
  }
  return dir;
}

function install(manager, dir) {
  const args = manager === 'npm' ? ['install', '--no-audit', '--no-fund'] : ['install'];
  run(manager, args, { cwd: dir, env });
  const installed = readdirSync(join(dir, 'node_modules', '@rmmjs')).map((name) => `@rmmjs/${name}`);
  if (existsSync(join(dir, 'node_modules', 'rmmjs'))) installed.push('rmmjs');
  const built = installed.filter((name) => existsSync(join(dir, 'node_modules', name, 'build')));
  expect(built.length === 0, `build/ in ${built.join(', ')}: something compiled at install`);
  return `${installed.length} rmmjs packages, none built at install`;
}

for (const manager of ['npm', 'pnpm']) {
  const minimal = project(manager, 'core-pool', named('@rmmjs/core', '@rmmjs/pool'));
  if (check(`${manager} install @rmmjs/core @rmmjs/pool`, () => install(manager, minimal))) {
    check(`${manager}: (a) pool in host mode`, () => node(minimal, POOL_SCRIPT, HOST).trim());
    check(`${manager}: (a) pool on the fake driver`, () => {
      expect(existsSync(fakeDriver), `${relative(root, fakeDriver)} is missing: run \`pnpm build\``);
      return node(minimal, POOL_SCRIPT, FAKE).trim();
    });
    if (manager === 'npm') sourceBuild(minimal);
  }

  const everything = project(manager, 'all', packages, {
    typescript: typescriptVersion,
    '@types/node': typesNodeVersion,
  });
  if (!check(`${manager} install every package, typescript ${typescriptVersion}`, () => install(manager, everything)))
    continue;
  check(`${manager}: (b) import * as rmm from 'rmmjs'`, () => node(everything, UMBRELLA_SCRIPT, HOST).trim());
  check(`${manager}: (c) npx rmmjs demo (host mode)`, () => {
    const output = run('npx', ['rmmjs', 'demo'], { cwd: everything, env: { ...env, ...HOST } });
    expect(/round trip 16 MiB/.test(output), `no profiler report in:\n${output.slice(-2000)}`);
    return `${output.trim().split('\n').length} lines, profiler report printed`;
  });
  check(`${manager}: (d) TypeScript consumer (strict) against the published types`, () => {
    writeFileSync(join(everything, 'consumer.ts'), CONSUMER_TS);
    writeFileSync(join(everything, 'tsconfig.json'), JSON.stringify(CONSUMER_TSCONFIG, null, 2));
    run('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: everything, env });
    const output = run('node', ['out/consumer.js'], { cwd: everything, env: { ...env, ...HOST } }).trim();
    expect(output === '1,2,3 bigint 1048576 ERR_INVALID_ARG_TYPE ERR_RMM_ADDON_LOAD_FAILED', `it printed ${output}`);
    return `tsc clean, ran: ${output}`;
  });
  if (manager === 'npm' && gpuBundle) {
    check(`bundle for the GPU machine: ${gpuBundle}`, () => {
      run('tar', [
        '-cJf',
        join(process.cwd(), gpuBundle),
        '--exclude=node_modules/typescript',
        '--exclude=node_modules/@types',
        '--exclude=node_modules/@rmmjs/*/build', // (e)'s source build: the GPU runs the prebuilds
        '-C',
        temp,
        'npm-core-pool',
        'npm-all',
      ]);
      return kib(statSync(join(process.cwd(), gpuBundle)).size);
    });
  }
}

finish();

// On the GPU machine: the npm-installed projects of a --gpu-bundle, run on the real driver (no
// npm there: the bins run with node).
function runOnGpu(file) {
  check(`unpack ${file}`, () => {
    run('tar', ['-xJf', join(process.cwd(), file), '-C', temp]);
    return temp;
  });
  const minimal = join(temp, 'npm-core-pool');
  const everything = join(temp, 'npm-all');
  const gpu = { ...process.env, ...PREBUILDS };
  delete gpu.RMMJS_DISABLE_CUDA;
  const onGpuNode = (dir, args) => run('node', args, { cwd: dir, env: gpu }).trim();
  const cudaLine = (output) => {
    expect(/^cuda, \d+ devices/.test(output), `not on the GPU: ${output}`);
    return output;
  };
  check('gpu: (a) @rmmjs/core + @rmmjs/pool alone', () =>
    cudaLine(onGpuNode(minimal, ['--input-type=module', '-e', POOL_SCRIPT])),
  );
  check("gpu: (b) import * as rmm from 'rmmjs'", () =>
    onGpuNode(everything, ['--input-type=module', '-e', UMBRELLA_SCRIPT]),
  );
  check('gpu: (c) rmmjs demo', () => {
    const output = onGpuNode(everything, [join(everything, 'node_modules', '.bin', 'rmmjs'), 'demo']);
    expect(/round trip 16 MiB/.test(output), `no profiler report in:\n${output.slice(-2000)}`);
    expect(
      !/host mode/i.test(output.split('\n').slice(0, 5).join('\n')),
      `the demo ran in host mode:\n${output.slice(0, 800)}`,
    );
    return `${output.split('\n').length} lines, profiler report printed`;
  });
  check('gpu: (d) the compiled TypeScript consumer', () => {
    const output = onGpuNode(everything, ['out/consumer.js']);
    expect(output === '1,2,3 bigint 1048576 ERR_INVALID_ARG_TYPE ERR_RMM_ADDON_LOAD_FAILED', `it printed ${output}`);
    return output;
  });
  finish();
}

// (e) What the load error says to do where no prebuild fits: build the installed package from
// source, with the compiler and cmake (the full PATH), cmake-js and node-addon-api in the project.
function sourceBuild(dir) {
  const fullPath = { ...env, PATH: process.env.PATH };
  check(`npm: (e) source build of the installed @rmmjs/pool (cmake-js ${cmakeJsVersion}, only core beside it)`, () => {
    const pool = join(dir, 'node_modules', '@rmmjs', 'pool');
    const prebuild = join(pool, 'prebuilds', 'linux-x64', 'rmmjs_pool.napi.glibc.node');
    const before = statSync(prebuild).mtimeMs;
    run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--save-dev',
        `cmake-js@${cmakeJsVersion}`,
        `node-addon-api@${nodeAddonApiVersion}`,
      ],
      { cwd: dir, env: fullPath },
    );
    run('npx', ['cmake-js', 'compile', '--directory', 'node_modules/@rmmjs/pool', '--log-level', 'warn'], {
      cwd: dir,
      env: fullPath,
    });
    expect(statSync(prebuild).mtimeMs === before, 'a source build under node_modules/ wrote its prebuild');
    const output = node(dir, POOL_SCRIPT, { ...HOST, SMOKE_POOL_FROM: '/@rmmjs/pool/build/Release/rmmjs_pool.node' });
    return `build/Release/rmmjs_pool.node loaded first: ${output.trim()}`;
  });
}

function finish() {
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  if (failed > 0) {
    console.log(`smoke: ${failed} of ${passed + failed} checks FAILED in ${seconds} s (kept ${temp})`);
    process.exit(1);
  }
  if (keep) console.log(`smoke: kept ${temp}`);
  else rmSync(temp, { recursive: true, force: true });
  console.log(`smoke: all ${passed} checks ok in ${seconds} s`);
  process.exit(0);
}
