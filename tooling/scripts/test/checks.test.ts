// check-glibc.mjs (the prebuilds' glibc floor) and format.mjs: their command lines, and
// check-glibc on folders of its own: a prebuild within the floor, one over it, none at all.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnWithHangReport } from '@rmmjs/test-helpers';
import { afterAll, describe, expect, it } from 'vitest';

const script = (name: string) => fileURLToPath(new URL(`../${name}`, import.meta.url));
const node = (name: string, args: string[]) =>
  spawnWithHangReport(process.execPath, [script(name), ...args], { timeout: 60_000 });
const dir = mkdtempSync(join(tmpdir(), 'rmmjs-checks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('check-glibc.mjs', () => {
  const floor = 'glibc 2.34 and libstdc++ GLIBCXX_3.4.30';

  it('refuses an unknown option', () => {
    expect(node('check-glibc.mjs', ['--all'])).toMatchObject({
      status: 2,
      stdout: '',
      stderr: 'check-glibc: unknown option --all (it takes no options)\n',
    });
  });

  it("passes a package's prebuild within the floor, naming the versions it needs", () => {
    const within = join(dir, 'within', 'linux-x64');
    mkdirSync(within, { recursive: true });
    const prebuild = fileURLToPath(
      new URL('../../../packages/pool/prebuilds/linux-x64/rmmjs_pool.napi.glibc.node', import.meta.url),
    );
    copyFileSync(prebuild, join(within, 'rmmjs_pool.napi.glibc.node'));
    const run = node('check-glibc.mjs', [join(dir, 'within')]);
    const [line, summary, end] = run.stdout.split('\n');
    expect(line.slice(0, line.indexOf(': '))).toBe(`ok   ${join(within, 'rmmjs_pool.napi.glibc.node')}`);
    expect(line.slice(line.indexOf(': ') + 2)).toMatch(/^GLIBCXX_3\.4\.\d+ GLIBC_2\.\d+$/);
    expect([summary, end]).toEqual([`check-glibc: 1 of 1 prebuilds within ${floor}`, '']);
    expect([run.status, run.stderr]).toEqual([0, '']);
  });

  it.runIf(spawnSync('cc', ['--version']).status === 0)(
    'fails a library that needs a newer glibc than the floor (arc4random is GLIBC_2.36)',
    () => {
      const over = join(dir, 'over');
      mkdirSync(over);
      writeFileSync(join(over, 'needs.c'), '#include <stdlib.h>\nunsigned draw(void) { return arc4random(); }\n');
      const cc = spawnSync('cc', ['-shared', '-fPIC', '-o', join(over, 'needs.so'), join(over, 'needs.c')], {
        encoding: 'utf8',
      });
      // A C library older than 2.36 has no arc4random to link against: nothing to check then.
      if (cc.status !== 0) return;
      expect(node('check-glibc.mjs', [over])).toMatchObject({
        status: 1,
        stdout: `FAIL ${join(over, 'needs.so')}: needs GLIBC_2.36 > GLIBC_2.34\ncheck-glibc: 0 of 1 prebuilds within ${floor}\n`,
        stderr: '',
      });
    },
  );

  it('fails where it finds no prebuild', () => {
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    expect(node('check-glibc.mjs', [empty])).toMatchObject({
      status: 1,
      stdout: '',
      stderr: 'check-glibc: no prebuilds found (run `pnpm build` first)\n',
    });
  });
});

describe('format.mjs', () => {
  it('refuses an unknown option and a value given to --check, before it formats anything', () => {
    expect(node('format.mjs', ['--fix'])).toMatchObject({
      status: 2,
      stdout: '',
      stderr: 'format: unknown option --fix (options: --check)\n',
    });
    expect(node('format.mjs', ['--check=no'])).toMatchObject({ status: 2, stderr: 'format: --check takes no value\n' });
    expect(node('format.mjs', ['src'])).toMatchObject({
      status: 2,
      stderr: 'format: unexpected argument src (options: --check)\n',
    });
  });
});
