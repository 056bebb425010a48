import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * Loads a package's native addon from `relativePath` (relative to the module `moduleUrl`, e.g.
 * `../build/Release/rmmjs_core.node` from `dist/`). When that fails, one error lists what to do.
 */
export function loadAddon<T>(moduleUrl: string, relativePath: string, packageName: string): T {
  const path = fileURLToPath(new URL(relativePath, moduleUrl));
  try {
    return createRequire(moduleUrl)(path) as T;
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new Error(
      [
        `Could not load the native addon of ${packageName} (${path}): ${reason}`,
        'Possible fixes:',
        `- build it: \`pnpm build\` in the rmmjs repository, or \`npm rebuild ${packageName}\` (needs cmake >= 3.18 and a C++17 compiler; no CUDA toolkit)`,
        `- use Node.js >= 20.19 on Linux x64 or arm64 (this is Node.js ${process.version} on ${process.platform}-${process.arch})`,
        '- install matching versions of all @rmmjs packages (one @rmmjs/core per install)',
      ].join('\n'),
      { cause },
    );
  }
}
