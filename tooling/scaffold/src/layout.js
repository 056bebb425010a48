// What every native resource package has in common, written once: its CMakeLists.txt's first
// lines and its package.json's shared fields. The scaffold stamps new packages from these, and a
// test checks that the packages in the workspace still match them, so they cannot drift apart.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repositoryRoot } from '@rmmjs/registry';

/** The lines every CMakeLists.txt of an addon starts with: find @rmmjs/core and include its helper. */
export function cmakePrelude(target, languages = 'CXX') {
  return [
    'cmake_minimum_required(VERSION 3.18)',
    `project(${target} ${languages})`,
    "# rmmjs_addon() is in @rmmjs/core's cmake/, found where this package resolves @rmmjs/core.",
    `execute_process(COMMAND node -p "require('path').dirname(require.resolve('@rmmjs/core/package.json'))"`,
    '  WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} OUTPUT_VARIABLE RMMJS_CORE_DIR OUTPUT_STRIP_TRAILING_WHITESPACE)',
    'include(${RMMJS_CORE_DIR}/cmake/rmmjs_addon.cmake)',
  ];
}

/** A whole CMakeLists.txt of a package whose addon is built from `sources`. */
export function cmakeLists(target, sources) {
  return [...cmakePrelude(target), `rmmjs_addon(${target} SOURCES ${sources.join(' ')})`, ''].join('\n');
}

/** The versions the workspace builds and tests with (the root package.json's devDependencies). */
function toolVersions() {
  const { devDependencies } = JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8'));
  return devDependencies;
}

const TOOLS = ['@types/node', 'cmake-js', 'node-addon-api', 'node-api-headers', 'typescript', 'vitest'];

/**
 * The package.json of a native resource package, in the workspace's key order: `name`,
 * `description` and `resources` (its registrations) are its own; everything else is shared.
 */
export function packageManifest({ name, folder, description, resources }) {
  const versions = toolVersions();
  return {
    name,
    version: '0.1.0',
    description,
    type: 'module',
    main: './dist/index.js',
    types: './dist/index.d.ts',
    exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' }, './package.json': './package.json' },
    files: ['dist', 'src', 'CMakeLists.txt', 'prebuilds'],
    engines: { node: '>=20.19' },
    os: ['linux'],
    cpu: ['x64'],
    libc: ['glibc'],
    binary: { napi_versions: [8] },
    rmmjs: { resources },
    scripts: {
      build: 'pnpm run build:native && pnpm run build:ts',
      'build:native': 'cmake-js compile --out build --parallel 2 --log-level warn',
      'build:ts': 'tsc -p tsconfig.json',
      test: 'rmmjs-test',
      lint: 'tsc -p tsconfig.test.json',
    },
    peerDependencies: { '@rmmjs/core': 'workspace:^' },
    devDependencies: {
      '@rmmjs/core': 'workspace:*',
      '@rmmjs/test-addon': 'workspace:*',
      '@rmmjs/test-helpers': 'workspace:*',
      '@rmmjs/tsconfig': 'workspace:*',
      ...Object.fromEntries(TOOLS.map((tool) => [tool, versions[tool]])),
    },
    license: 'Apache-2.0',
    repository: { type: 'git', url: 'git+https://github.com/rmmjs/rmmjs.git', directory: `packages/${folder}` },
  };
}

/** The fields of a manifest that every native resource package shares (compared by the layout test). */
export const SHARED_FIELDS = [
  'version',
  'type',
  'main',
  'types',
  'exports',
  'files',
  'engines',
  'os',
  'cpu',
  'libc',
  'binary',
  'scripts',
  'peerDependencies',
  'license',
  'repository',
];

/** The shared tools among the devDependencies, with the workspace's versions. */
export const sharedDevDependencies = (manifest) =>
  Object.fromEntries(Object.entries(manifest.devDependencies).filter(([name]) => TOOLS.includes(name)));
