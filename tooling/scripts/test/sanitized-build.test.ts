// sanitized-build.mjs, which `pnpm test:asan` builds with and checks its builds by: a small project
// (an addon made by core's rmmjs_addon() in C++, a plain C library) built by cmake-js three ways.
// With sanitizedBuildOptions every object and library is instrumented and no prebuild is written;
// with the flags on cmake-js's command line (what asan.mjs passed before) cmake-js's own
// CMAKE_CXX_FLAGS wins, so the C++ code is not instrumented, yet its addon needs the sanitizer
// runtime, and so does the prebuild it writes; the normal build carries nothing of the sanitizers.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { isPlain, objectFilesOf, sanitizedBuildOptions, sanitizerTraces } from '../sanitized-build.mjs';

const repository = fileURLToPath(new URL('../../..', import.meta.url));
const cmakeJs = join(repository, 'node_modules', '.bin', 'cmake-js');
// In the repository, where node-addon-api resolves (rmmjs_addon.cmake looks it up).
const project = mkdtempSync(join(repository, 'tooling', 'scripts', '.sanitized-build-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));

writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'probe', binary: { napi_versions: [8] } }));
writeFileSync(join(project, 'addon.cc'), 'int twice(const int* x) { return *x * 2; }\n');
writeFileSync(join(project, 'plain.c'), 'int thrice(const int* x) { return *x * 3; }\n');
writeFileSync(
  join(project, 'CMakeLists.txt'),
  [
    'cmake_minimum_required(VERSION 3.18)',
    'project(probe CXX)',
    `include(${join(repository, 'packages', 'core', 'cmake', 'rmmjs_addon.cmake')})`,
    'rmmjs_addon(probe_addon SOURCES addon.cc)',
    'enable_language(C)',
    'add_library(probe_plain SHARED plain.c)',
    '',
  ].join('\n'),
);

// cmake and the compilers run without the sanitizer runtime that `pnpm test:asan` preloads here.
const environment = { ...process.env };
delete environment.LD_PRELOAD;

/** Runs cmake-js `configure` then `build` with these options; the build folder's files. */
function build(out: string, options: string[]) {
  rmSync(join(project, 'prebuilds'), { recursive: true, force: true });
  for (const command of ['configure', 'build']) {
    const run = spawnSync(cmakeJs, [command, '--out', out, '--log-level', 'warn', ...options], {
      cwd: project,
      env: environment,
      encoding: 'utf8',
      timeout: 240_000,
    });
    expect(run.status, `${command}: ${run.stdout}${run.stderr}`).toBe(0);
  }
  const dir = join(project, out);
  const prebuilds = join(project, 'prebuilds', 'linux-x64');
  return {
    objects: objectFilesOf(dir).map((file) => ({ name: basename(file), ...sanitizerTraces(file) })),
    addon: join(dir, 'Release', 'probe_addon.node'),
    plain: join(dir, 'Release', 'libprobe_plain.so'),
    prebuilds: existsSync(prebuilds) ? readdirSync(prebuilds).map((name) => join(prebuilds, name)) : [],
  };
}

const runtimes = [expect.stringMatching(/^libasan\.so\.\d+$/), expect.stringMatching(/^libubsan\.so\.\d+$/)];

describe('sanitizedBuildOptions', () => {
  it('instruments every object and library, C++ and C, and writes no prebuild', { timeout: 480_000 }, () => {
    // sanitizedBuildOptions names its folder; the rest is what asan.mjs passes.
    const [, , ...options] = sanitizedBuildOptions('build-asan');
    expect(sanitizedBuildOptions('build-asan').slice(0, 2)).toEqual(['--out', 'build-asan']);
    const sanitized = build('build-asan', options);
    expect(sanitized.objects).toEqual([
      { name: 'addon.cc.o', asan: true, ubsan: true, runtimes: [] },
      { name: 'plain.c.o', asan: true, ubsan: true, runtimes: [] },
    ]);
    for (const library of [sanitized.addon, sanitized.plain]) {
      expect(sanitizerTraces(library)).toEqual({ asan: true, ubsan: true, runtimes });
      expect(isPlain(library)).toBe(false);
    }
    expect(sanitized.prebuilds).toEqual([]);
  });

  it(
    "the flags on cmake-js's command line instead: the C++ object is not instrumented, its addon and prebuild need the runtime",
    {
      timeout: 480_000,
    },
    () => {
      const flags = '-fsanitize=address,undefined -fno-omit-frame-pointer -g';
      const old = build('build-flags', [
        `--CDCMAKE_CXX_FLAGS=${flags}`,
        `--CDCMAKE_C_FLAGS=${flags}`,
        '--CDCMAKE_SHARED_LINKER_FLAGS=-fsanitize=address,undefined',
      ]);
      expect(old.objects).toEqual([
        { name: 'addon.cc.o', asan: false, ubsan: false, runtimes: [] },
        { name: 'plain.c.o', asan: true, ubsan: true, runtimes: [] },
      ]);
      expect(sanitizerTraces(old.addon)).toEqual({ asan: false, ubsan: false, runtimes });
      expect(old.prebuilds.map((file) => basename(file))).toEqual(['probe_addon.napi.glibc.node']);
      expect(isPlain(old.prebuilds[0])).toBe(false);
    },
  );

  it('the normal build carries nothing of the sanitizers', { timeout: 480_000 }, () => {
    mkdirSync(join(project, 'build'), { recursive: true });
    const normal = build('build', []);
    expect(normal.objects).toEqual([
      { name: 'addon.cc.o', asan: false, ubsan: false, runtimes: [] },
      { name: 'plain.c.o', asan: false, ubsan: false, runtimes: [] },
    ]);
    for (const file of [normal.addon, normal.plain, ...normal.prebuilds]) expect(isPlain(file)).toBe(true);
    expect(normal.prebuilds.map((file) => basename(file))).toEqual(['probe_addon.napi.glibc.node']);
  });
});
