// What the smoke suites share: the public packages and their tarballs, the commands they run, the
// fixture programs copied into the projects they install, and the environments those run in.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { root, workspacePackages } from '@rmmjs/scripts/workspace.mjs';

export { root };

/** The folder a smoke run works in (src/smoke.mjs makes it, and keeps it with --keep or a failure). */
export function smokeDir(): string {
  const dir = process.env.RMMJS_SMOKE_DIR;
  if (!dir) throw new Error('RMMJS_SMOKE_DIR is not set: run the smoke with `pnpm smoke` (src/smoke.mjs)');
  return dir;
}

export const fakeDriver = join(root, 'tooling', 'fake-cuda', 'build', 'libfakecuda.so');

/** The versions the repository builds with, for the TypeScript consumer and the source build. */
export const versions = (() => {
  const { devDependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return {
    typescript: devDependencies.typescript as string,
    typesNode: devDependencies['@types/node'] as string,
    cmakeJs: devDependencies['cmake-js'] as string,
    nodeAddonApi: devDependencies['node-addon-api'] as string,
  };
})();

export interface PublicPackage {
  name: string;
  dir: string;
  manifest: { version: string };
  /** The file `pnpm pack` writes: `rmmjs-pool-0.1.0.tgz`. */
  tarball: string;
  /** Whether it has an addon of its own (a CMakeLists.txt). */
  native: boolean;
}

/** Every public package under packages/, with its tarball's name. */
export const packages: PublicPackage[] = workspacePackages()
  .filter(
    (p: { manifest: { private?: boolean }; dir: string }) =>
      !p.manifest.private && p.dir.startsWith(join(root, 'packages')),
  )
  .map((p: { name: string; dir: string; manifest: { version: string } }) => ({
    ...p,
    tarball: `${p.name.replace(/^@/, '').replace('/', '-')}-${p.manifest.version}.tgz`,
    native: existsSync(join(p.dir, 'CMakeLists.txt')),
  }));

/**
 * Runs a command to its end and returns its output (stdout, then stderr); throws with the end of
 * its output when it fails.
 */
export function run(
  command: string,
  args: string[],
  { cwd, env = process.env, timeout = 300_000 }: { cwd: string; env?: NodeJS.ProcessEnv; timeout?: number },
): string {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout, maxBuffer: 64 << 20 });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  if (result.error || result.status !== 0) {
    const tail = output.trim().split('\n').slice(-25).join('\n');
    const how = result.error ? `failed: ${result.error.message}` : `exited ${result.status ?? result.signal}`;
    throw new Error(`\`${[command, ...args].join(' ')}\` in ${cwd} ${how}\n${tail}`);
  }
  return output;
}

export const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** A fixture program's path (fixtures/). */
export const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

/** Copies fixture programs into a project, where their imports resolve to what it installed. */
export function copyFixtures(dir: string, ...names: string[]) {
  for (const name of names) copyFileSync(fixture(name), join(dir, name));
}

// Where pool.mjs checks the addons were loaded from: the prebuilds of the tarballs.
export const PREBUILDS = { SMOKE_CORE_FROM: '/prebuilds/linux-x64/', SMOKE_POOL_FROM: '/prebuilds/linux-x64/' };
export const HOST = { RMMJS_DISABLE_CUDA: '1', ...PREBUILDS };
export const FAKE = { RMMJS_CUDA_LIBRARY: fakeDriver, ...PREBUILDS };

/** What the compiled consumer.ts prints. */
export const CONSUMER_PRINTS = '1,2,3 bigint 1048576 ERR_INVALID_ARG_TYPE ERR_RMM_ADDON_LOAD_FAILED';

/** `rmmjs demo`'s output ends with the profiler's report, which has this row. */
export const DEMO_REPORT = /round trip 16 MiB/;
