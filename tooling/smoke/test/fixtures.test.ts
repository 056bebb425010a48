// The smoke's fixture programs, run here against the workspace's own build on this backend (the
// smoke runs them in projects installed from the tarballs): what each prints, and pool.mjs's check
// of where the addons were loaded from.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cuda } from '@rmmjs/core';
import { onHost } from '@rmmjs/test-helpers';
import * as rmm from 'rmmjs';
import { describe, expect, it } from 'vitest';
import { CONSUMER_PRINTS, copyFixtures, fixture } from '../smoke/project.js';

const node = (args: string[], { cwd, env = {} }: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  spawnSync(process.execPath, args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 120_000 });
const workspaceBuild = {
  SMOKE_CORE_FROM: '/packages/core/build/Release/',
  SMOKE_POOL_FROM: '/packages/pool/build/Release/',
};

describe('fixtures/pool.mjs', () => {
  it('allocates from a pool and frees it, and says which mode it ran in', () => {
    const mode = cuda.isAvailable() ? `cuda, ${cuda.getDeviceCount()} devices` : 'host';
    expect(node([fixture('pool.mjs')], { env: workspaceBuild })).toMatchObject({
      status: 0,
      stdout: `${mode}, pool 2621440 bytes, 5 allocations freed\n`,
      stderr: '',
    });
  });

  it('fails where an addon was not loaded from where SMOKE_CORE_FROM says', () => {
    const run = node([fixture('pool.mjs')], { env: { ...workspaceBuild, SMOKE_CORE_FROM: '/prebuilds/linux-x64/' } });
    expect([run.status, run.stdout]).toEqual([1, '']);
    expect(run.stderr).toContain("Error: core's addon is not from /prebuilds/linux-x64/: ");
  });
});

describe('fixtures/umbrella.mjs', () => {
  it('finds one copy of each package behind rmmjs, and counts a buffer on the reinitialized pool', () => {
    expect(node([fixture('umbrella.mjs')])).toMatchObject({
      status: 0,
      stdout: `${Object.keys(rmm).length} exports, ${Object.keys(rmm.mr).length} in rmm.mr, 1 allocation counted, current PoolMemoryResource\n`,
      stderr: '',
    });
  });
});

describe('fixtures/consumer.ts', () => {
  it.runIf(onHost())('compiles with strict against the declarations and prints what the smoke expects', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rmmjs-consumer-'));
    try {
      // A project of ES modules, as the smoke's are, with this package's node_modules.
      writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
      copyFixtures(dir, 'consumer.ts', 'tsconfig.json');
      symlinkSync(fileURLToPath(new URL('../node_modules', import.meta.url)), join(dir, 'node_modules'));
      const tsc = node([join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: dir });
      expect([tsc.status, tsc.stdout, tsc.stderr]).toEqual([0, '', '']);
      expect(node(['out/consumer.js'], { cwd: dir })).toMatchObject({
        status: 0,
        stdout: `${CONSUMER_PRINTS}\n`,
        stderr: '',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
