import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RMMError } from './errors.js';
import { supportedPlatforms } from './supported-platforms.js';

// node-gyp-build picks the addon of a package directory: build/Release/*.node (a source build)
// first, then the prebuild in prebuilds/<platform>-<arch>/ whose tags (napi, glibc) fit this Node.
const nodeGypBuild = createRequire(import.meta.url)('node-gyp-build') as { path(dir: string): string };

/**
 * Requires the native addon of the package directory `packageDir` (relative to the module
 * `moduleUrl`, e.g. `..` from `dist/`), without calling its `init`: its `build/Release/<name>.node`
 * when built from source, else its prebuild `prebuilds/linux-x64/<name>.napi.glibc.node`. Where
 * `build/Release/` holds other `.node` files too (a left-over test addon), the one named after the
 * package is taken: `@scope/some-name` -> `scope_some_name.node` or `some_name.node`. When that
 * fails it throws one `RMMError` (`ERR_RMM_ADDON_LOAD_FAILED`) that lists what to do, with the
 * underlying error as its `cause`.
 */
export function requireAddon<T>(moduleUrl: string, packageDir: string, packageName: string): T {
  const dir = fileURLToPath(new URL(packageDir, moduleUrl)).replace(/(.)\/$/, '$1');
  let file: string | undefined;
  try {
    file = ownSourceBuild(dir, packageName) ?? nodeGypBuild.path(dir);
    return createRequire(moduleUrl)(file) as T;
  } catch (cause) {
    throw addonLoadError(packageName, dir, file, cause);
  }
}

// node-gyp-build takes the first .node file in build/Release/, whatever its name.
function ownSourceBuild(dir: string, packageName: string): string | undefined {
  const underscored = (name: string) => name.replace(/[^A-Za-z0-9]+/g, '_');
  const slash = packageName.indexOf('/');
  const names =
    packageName.startsWith('@') && slash > 0
      ? [underscored(packageName.slice(1)), underscored(packageName.slice(slash + 1))]
      : [underscored(packageName)];
  return names.map((name) => join(dir, 'build', 'Release', `${name}.node`)).find((file) => existsSync(file));
}

// This Node.js, platform and C library, as the error compares them with the supported ones.
function thisRuntime(): string {
  let libc = '';
  if (process.platform === 'linux') {
    const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
    const glibc = report?.header?.glibcVersionRuntime;
    libc = glibc ? `, glibc ${glibc}` : ', not glibc (musl?)';
  }
  return `Node.js ${process.version} (Node-API ${process.versions.napi}) on ${process.platform}-${process.arch}${libc}`;
}

function addonLoadError(packageName: string, dir: string, file: string | undefined, cause: unknown): RMMError {
  const reason = (cause instanceof Error ? cause.message : String(cause)).trim().replace(/\s*\n\s*/g, '; ');
  const { prebuilds, glibc, glibcxx, node, nodeApi } = supportedPlatforms;
  const where = file === undefined ? `found none in ${dir}` : `${file} did not load`;
  return new RMMError(
    [
      `Could not load the native addon of ${packageName} (${where}): ${reason}`,
      'What to do:',
      `- Use a platform with a prebuilt addon: ${prebuilds.join(', ')} with glibc >= ${glibc} and the libstdc++ of GCC >= 12 (GLIBCXX_${glibcxx}), Node.js >= ${node} with Node-API ${nodeApi}. This is ${thisRuntime()}.`,
      `- Or build it from source, with cmake >= 3.18 and a C++17 compiler (no CUDA toolkit): in your project \`npm install --save-dev cmake-js@8 node-addon-api@8\`, then \`npx cmake-js compile --directory ${dir}\` (a build in its build/Release/ is loaded first). In a clone of the rmmjs repository: \`pnpm build\`.`,
      '- Install the same version of every @rmmjs package (one @rmmjs/core per install).',
      '- Once it loads, `npx rmmjs info` says which CUDA driver and GPUs rmmjs finds (the driver is loaded at run time; without one, rmmjs runs in host mode).',
    ].join('\n'),
    { code: 'ERR_RMM_ADDON_LOAD_FAILED', cause },
  );
}
