// `npx rmmjs <command>` after `npm i rmmjs`: the package carries the `rmmjs` bin of @rmmjs/cli.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { withCuda } from '@rmmjs/test-helpers';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const bin = fileURLToPath(new URL(`../${manifest.bin.rmmjs}`, import.meta.url));
const cliManifest = createRequire(import.meta.url)('@rmmjs/cli/package.json');
const run = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });

describe('the rmmjs bin', () => {
  it('is the same command as @rmmjs/cli', () => {
    expect(manifest.bin).toEqual({ rmmjs: './bin/rmmjs.js' });
    expect(cliManifest.bin).toEqual({ rmmjs: './dist/bin.js' });
    expect(manifest.files).toContain('bin');
    expect(manifest.dependencies['@rmmjs/cli']).toBeDefined();
    expect(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    const version = run('--version');
    expect([version.status, version.stdout, version.stderr]).toEqual([0, `${cliManifest.version}\n`, '']);
  });

  it('runs a command and passes its exit code on', () => {
    const info = run('info', '--json');
    expect(info.status).toBe(0);
    expect(JSON.parse(info.stdout).mode).toBe(withCuda() ? 'cuda' : 'host');
    const wrong = run('nope');
    expect(wrong.status).toBe(2);
    expect(wrong.stderr.split('\n')[0]).toBe("rmmjs: unknown command 'nope'");
  });
});
