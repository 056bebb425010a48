// The scaffold: the names it derives, the edits it makes, and, once per run (in host mode), a new
// adaptor and a new suballocator stamped into a temporary folder that build, lint, are formatted
// and pass their tests and conformance suite in host mode and on the fake driver, as they are.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repositoryRoot } from '@rmmjs/registry';
import { conformanceCases, onHost } from '@rmmjs/test-helpers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NameError, namesFor } from '../src/names.js';
import { renderTemplate, stamp, withUmbrellaDependency } from '../src/stamp.js';

describe('names', () => {
  it('are derived from one package name', () => {
    expect(namesFor('device-counter', 'adaptor')).toEqual({
      kind: 'adaptor',
      folder: 'device-counter',
      package: '@rmmjs/device-counter',
      className: 'DeviceCounterResourceAdaptor',
      shortName: 'DeviceCounter',
      file: 'device-counter-resource-adaptor',
      snake: 'device_counter_resource_adaptor',
      target: 'rmmjs_device_counter',
    });
    expect(namesFor('slab', 'suballocator').className).toBe('SlabMemoryResource');
  });

  it('refuse what is not a package name, or repeats what is added', () => {
    expect(() => namesFor('Counting', 'adaptor')).toThrow(
      new NameError('"Counting" is not a package name: lower-case words joined by "-", such as "my-adaptor"'),
    );
    expect(() => namesFor('counting-adaptor', 'adaptor')).toThrow(
      new NameError('"counting-adaptor": leave out "adaptor", it is added'),
    );
    expect(() => namesFor('x', 'layer')).toThrow(new NameError('unknown kind "layer" (adaptor, suballocator)'));
  });
});

describe('the template', () => {
  it('fills every placeholder', () => {
    const files = renderTemplate(namesFor('counting', 'adaptor'));
    expect(files.map((file) => file.path).sort()).toEqual([
      'CMakeLists.txt',
      'README.md',
      'package.json',
      'src/addon.ts',
      'src/counting-resource-adaptor.ts',
      'src/index.ts',
      'src/native/addon.cc',
      'src/native/counting_resource_adaptor.h',
      'test/addon-exports.test.ts',
      'test/conformance.test.ts',
      'tsconfig.json',
      'tsconfig.test.json',
    ]);
    expect(files.filter((file) => file.text.includes('{{'))).toEqual([]);
    const suballocator = renderTemplate(namesFor('slab', 'suballocator'));
    expect(suballocator.map((file) => file.path).sort()).toEqual([
      'CMakeLists.txt',
      'README.md',
      'package.json',
      'src/addon.ts',
      'src/index.ts',
      'src/native/addon.cc',
      'src/native/slab_memory_resource.h',
      'src/slab-memory-resource.ts',
      'test/addon-exports.test.ts',
      'test/conformance.test.ts',
      'test/slab.test.ts',
      'tsconfig.json',
      'tsconfig.test.json',
    ]);
    expect(suballocator.filter((file) => file.text.includes('{{'))).toEqual([]);
    const { rmmjs } = JSON.parse(suballocator.find((file) => file.path === 'package.json')!.text);
    expect(rmmjs.resources.map((r: { class: string; kind: string }) => [r.class, r.kind])).toEqual([
      ['SlabMemoryResource', 'suballocator'],
    ]);
  });

  it('adds the package to the umbrella in order', () => {
    const before = JSON.stringify({
      name: 'rmmjs',
      dependencies: { '@rmmjs/arena': 'workspace:^', '@rmmjs/pool': 'workspace:^' },
    });
    expect(JSON.parse(withUmbrellaDependency(before, '@rmmjs/counting')).dependencies).toEqual({
      '@rmmjs/arena': 'workspace:^',
      '@rmmjs/counting': 'workspace:^',
      '@rmmjs/pool': 'workspace:^',
    });
  });
});

// The stamped package's dependencies, linked from this package's own (the same tools and versions).
function linkDependencies(directory: string) {
  const own = fileURLToPath(new URL('../node_modules', import.meta.url));
  const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8'));
  for (const name of Object.keys({ ...manifest.devDependencies, ...manifest.peerDependencies })) {
    mkdirSync(join(directory, 'node_modules', name, '..'), { recursive: true });
    symlinkSync(join(own, name), join(directory, 'node_modules', name));
  }
  mkdirSync(join(directory, 'node_modules', '.bin'));
  for (const bin of readdirSync(join(own, '.bin')))
    symlinkSync(join(own, '.bin', bin), join(directory, 'node_modules', '.bin', bin));
}

// The stamped package's dependencies are linked by hand: pnpm must not install them before a script
// (it does not when a pnpm script runs this suite, which sets this, but does under plain node).
function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const environment = { ...process.env, pnpm_config_verify_deps_before_run: 'false', ...env };
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: environment });
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

describe.runIf(onHost()).each([
  ['adaptor', 'ScaffoldedResourceAdaptor'],
  ['suballocator', 'ScaffoldedMemoryResource'],
] as const)('a stamped %s', (kind, className) => {
  // Stamped before the tests, not while they are collected: a skipped suite's body runs too (on a
  // GPU machine, which has no formatter to stamp with).
  let into: string;
  let directory: string;
  let written: string[];
  beforeAll(() => {
    into = mkdtempSync(join(tmpdir(), 'rmmjs-scaffold-'));
    ({ directory, written } = stamp('scaffolded', kind, { into, workspace: false }));
    linkDependencies(directory);
  });
  afterAll(() => rmSync(into, { recursive: true, force: true }));

  it('builds, lints and is formatted', () => {
    const build = run('pnpm', ['run', 'build'], directory);
    expect(build.status, build.output).toBe(0);
    const lint = run('pnpm', ['run', 'lint'], directory);
    expect(lint.status, lint.output).toBe(0);
    const bin = (name: string) => join(repositoryRoot, 'node_modules', '.bin', name);
    const config = ['--config', join(repositoryRoot, '.prettierrc.json')];
    const prettier = run(
      bin('prettier'),
      ['--check', ...config, ...written.filter((f) => /\.(ts|json)$/.test(f))],
      directory,
    );
    expect(prettier.status, prettier.output).toBe(0);
    const style = `--style=file:${join(repositoryRoot, '.clang-format')}`;
    const clang = run(
      bin('clang-format'),
      ['--dry-run', '--Werror', style, ...written.filter((f) => /\.(cc|h)$/.test(f))],
      directory,
    );
    expect(clang.status, clang.output).toBe(0);
  });

  it('passes its tests and its conformance suite in host mode and on the fake driver', () => {
    // Its reports where this test reads them, also under `pnpm test:asan` (which names another folder).
    const test = run('pnpm', ['test'], directory, { RMMJS_TEST_BACKENDS: 'host,fake', RMMJS_TEST_RESULTS_DIR: '' });
    expect(test.status, test.output).toBe(0);
    for (const backend of ['host', 'fake']) {
      const report = JSON.parse(readFileSync(join(directory, '.test-results', `${backend}.json`), 'utf8'));
      const { numTotalTests, numPassedTests, numFailedTests, numPendingTests, testResults } = report;
      expect([backend, numFailedTests, numPassedTests + numPendingTests]).toEqual([backend, 0, numTotalTests]);
      // The conformance suite ran for this class (a case or more per name; some skip in a backend).
      expect(numPassedTests).toBeGreaterThanOrEqual(conformanceCases.length);
      const names = testResults.flatMap((file: any) => file.assertionResults.map((test: any) => test.fullName));
      expect(names.filter((name: string) => !name.includes(className))).toEqual([]);
    }
  });
});
