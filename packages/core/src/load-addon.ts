import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

// node-gyp-build picks the addon of a package directory: build/Release/*.node (a source build)
// first, then the prebuild in prebuilds/<platform>-<arch>/ whose tags (napi, glibc) fit this Node.
const nodeGypBuild = createRequire(import.meta.url)('node-gyp-build') as { path(dir: string): string };

/**
 * Loads the native addon of the package directory `packageDir` (relative to the module
 * `moduleUrl`, e.g. `..` from `dist/`): its `build/Release/<name>.node` when built from source,
 * else its prebuild `prebuilds/linux-x64/<name>.napi.glibc.node`. When that fails, one error lists
 * what to do.
 */
export function loadAddon<T>(moduleUrl: string, packageDir: string, packageName: string): T {
  const dir = fileURLToPath(new URL(packageDir, moduleUrl));
  let file = dir;
  try {
    file = nodeGypBuild.path(dir);
    return createRequire(moduleUrl)(file) as T;
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message.trim() : String(cause);
    throw new Error(
      [
        `Could not load the native addon of ${packageName} (${file}): ${reason}`,
        'Possible fixes:',
        `- build it: \`pnpm build\` in the rmmjs repository, or \`npm rebuild ${packageName}\` (needs cmake >= 3.18 and a C++17 compiler; no CUDA toolkit)`,
        `- use Node.js >= 20.19 on Linux x64 or arm64 (this is Node.js ${process.version} on ${process.platform}-${process.arch})`,
        '- install matching versions of all @rmmjs packages (one @rmmjs/core per install)',
      ].join('\n'),
      { cause },
    );
  }
}
