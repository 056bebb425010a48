// @rmmjs/pool installed with its addon missing or corrupt: importing it is core's one error that says
// what to do (ERR_RMM_ADDON_LOAD_FAILED), in a process of its own.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const pool = fileURLToPath(new URL('..', import.meta.url));
const core = dirname(createRequire(import.meta.url).resolve('@rmmjs/core/package.json'));
const root = mkdtempSync(join(tmpdir(), 'rmmjs-pool-load-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// A project with @rmmjs/core and a copy of @rmmjs/pool as a tarball installs it (package.json,
// dist/), given `prebuild` as its prebuilt addon (undefined: none); the error importing it.
function importError(name: string, prebuild: string | undefined) {
  const project = join(root, name);
  const installed = join(project, 'node_modules', '@rmmjs', 'pool');
  mkdirSync(installed, { recursive: true });
  symlinkSync(core, join(project, 'node_modules', '@rmmjs', 'core'));
  cpSync(join(pool, 'package.json'), join(installed, 'package.json'));
  cpSync(join(pool, 'dist'), join(installed, 'dist'), { recursive: true });
  if (prebuild !== undefined) {
    mkdirSync(join(installed, 'prebuilds', 'linux-x64'), { recursive: true });
    writeFileSync(join(installed, 'prebuilds', 'linux-x64', 'rmmjs_pool.napi.glibc.node'), prebuild);
  }
  const run = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `try { await import('@rmmjs/pool'); console.log('loaded'); }
       catch (e) { console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message })); }`,
    ],
    { cwd: project, encoding: 'utf8', env: { ...process.env, RMMJS_DISABLE_CUDA: '1' } },
  );
  expect(run.stderr).toBe('');
  return { installed, error: JSON.parse(run.stdout) as { name: string; code: string; message: string } };
}

describe('@rmmjs/pool without a loadable addon', () => {
  it('missing: says where it looked and what to do', () => {
    const { installed, error } = importError('missing', undefined);
    expect(error.name).toBe('RMMError');
    expect(error.code).toBe('ERR_RMM_ADDON_LOAD_FAILED');
    expect(error.message).toMatch(
      /^Could not load the native addon of @rmmjs\/pool \(found none in .*\): No native build/,
    );
    expect(error.message).toContain('glibc >= 2.34');
    expect(error.message).toContain(`npx cmake-js compile --directory ${installed}`);
    expect(error.message).toContain('npx rmmjs info');
  });

  it('corrupt: names the file and what the dynamic loader said', () => {
    const { installed, error } = importError('corrupt', 'garbage '.repeat(64));
    expect(error.code).toBe('ERR_RMM_ADDON_LOAD_FAILED');
    expect(error.message).toContain(
      `(${join(installed, 'prebuilds', 'linux-x64', 'rmmjs_pool.napi.glibc.node')} did not load): `,
    );
    expect(error.message).toContain('invalid ELF header');
  });
});
