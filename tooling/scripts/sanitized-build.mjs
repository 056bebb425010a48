// The sanitized build of `pnpm test:asan` (asan.mjs): the options that make cmake-js build one, and
// what a native file says about the sanitizers it was built with, read with binutils (nm,
// readelf): the proof that the run checks what it loads, and that the normal build is left
// without them.
// - Every translation unit compiled with -fsanitize=address calls __asan_init (from the
//   constructor the compiler adds to it), so an object or a library without that reference was not
//   instrumented. Linking with -fsanitize=address alone (what a flag that reaches the linker but
//   not the compiler gives) adds the runtime to the library's NEEDED list and no __asan_init.
// - Code compiled with -fsanitize=undefined calls __ubsan_handle_* where it checks something: an
//   addon has such calls; a small object may have none.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SANITIZER_RUNTIME = /^lib(asan|ubsan)\.so/;
const sanitizeCmake = fileURLToPath(new URL('../cmake/sanitize.cmake', import.meta.url));

/**
 * cmake-js's options (for `configure` and `build`) of a sanitized build into `outDir`. The flags
 * come from tooling/cmake/sanitize.cmake, included after every project(): cmake-js sets
 * CMAKE_CXX_FLAGS itself, after and over a --CDCMAKE_CXX_FLAGS of its command line. No prebuilds:
 * prebuilds/ holds the normal build's, which a packed package ships.
 * @param {string} outDir
 */
export function sanitizedBuildOptions(outDir) {
  return ['--out', outDir, `--CDCMAKE_PROJECT_INCLUDE=${sanitizeCmake}`, '--CDRMMJS_PREBUILDS=OFF'];
}

/**
 * The sanitizer traces of an object file (`.o`) or a shared library (`.node`, `.so`): `asan`
 * (it calls __asan_init), `ubsan` (it calls a __ubsan_handle_* function) and `runtimes` (the
 * sanitizer runtimes in its NEEDED list; always empty for an object file).
 * @param {string} file
 * @returns {{ asan: boolean, ubsan: boolean, runtimes: string[] }}
 */
export function sanitizerTraces(file) {
  const object = file.endsWith('.o');
  const undefinedSymbols = execFileSync(
    'nm',
    [...(object ? [] : ['-D']), '--undefined-only', '--format=just-symbols', file],
    {
      encoding: 'utf8',
    },
  ).split('\n');
  const runtimes = object
    ? []
    : [
        ...execFileSync('readelf', ['--dynamic', '--wide', file], { encoding: 'utf8' }).matchAll(
          /\(NEEDED\)\s.*\[(.+)\]/g,
        ),
      ]
        .map((m) => m[1])
        .filter((name) => SANITIZER_RUNTIME.test(name));
  return {
    asan: undefinedSymbols.includes('__asan_init'),
    ubsan: undefinedSymbols.some((name) => name.startsWith('__ubsan_handle_')),
    runtimes,
  };
}

/** Whether a file of the normal build carries nothing of the sanitizers (it loads in a plain Node). */
export function isPlain(file) {
  const { asan, ubsan, runtimes } = sanitizerTraces(file);
  return !asan && !ubsan && runtimes.length === 0;
}

/**
 * The object files of the targets of a CMake build folder (`CMakeFiles/<target>.dir/**.o`), not
 * CMake's own compiler probes.
 * @param {string} buildDir
 */
export function objectFilesOf(buildDir) {
  const found = [];
  const cmakeFiles = join(buildDir, 'CMakeFiles');
  if (!existsSync(cmakeFiles)) return found;
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.o')) found.push(path);
    }
  };
  for (const name of readdirSync(cmakeFiles)) {
    if (name.endsWith('.dir')) walk(join(cmakeFiles, name));
  }
  return found.sort();
}
