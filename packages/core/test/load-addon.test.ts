// How loadAddon finds a package's addon (node-gyp-build: build/Release/ first, then the prebuild in
// prebuilds/<platform>-<arch>/), and the one error that says what to do when there is none or it
// does not load.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { RMMError, getCurrentDeviceResource } from '@rmmjs/core';
import { loadAddon, resourceHandle, wrapResource } from '@rmmjs/core/addon';
import type { ResourceHandle } from '@rmmjs/core/internal';
import { thrown } from '@rmmjs/test-helpers';
import { afterAll, describe, expect, it } from 'vitest';

const countingAddon = fileURLToPath(
  new URL('../build/test-addons/rmmjs_counting_adaptor/build/Release/rmmjs_counting_adaptor.node', import.meta.url),
);
interface CountingAddon {
  create(upstream: ResourceHandle): ResourceHandle;
  counts(mr: ResourceHandle): { allocations: number };
}

const root = mkdtempSync(join(tmpdir(), 'rmmjs-load-addon-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// A package directory with the given files (relative path -> contents, or a file to copy).
let packages = 0;
function packageWith(files: Record<string, string | { copy: string }>): string {
  const dir = join(root, `pkg${++packages}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `pkg${packages}`, type: 'module' }));
  for (const [path, contents] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    if (typeof contents === 'string') writeFileSync(join(dir, path), contents);
    else copyFileSync(contents.copy, join(dir, path));
  }
  return dir;
}
const moduleIn = (dir: string) => pathToFileURL(join(dir, 'dist', 'index.js')).href;
const PREBUILD = `prebuilds/${process.platform}-${process.arch}/counting.napi.glibc.node`;

function loadError(dir: string): RMMError {
  const error = thrown(() => loadAddon(moduleIn(dir), '..', '@example/counting'));
  expect(error).toBeInstanceOf(RMMError);
  expect(error.code).toBe('ERR_RMM_ADDON_LOAD_FAILED');
  return error;
}

describe('loadAddon finds the addon', () => {
  it('in prebuilds/<platform>-<arch>/ (an installed package)', () => {
    const dir = packageWith({ [PREBUILD]: { copy: countingAddon } });
    const addon = loadAddon<CountingAddon>(moduleIn(dir), '..', '@example/counting');
    const mr = wrapResource(addon.create(resourceHandle(getCurrentDeviceResource(), 'upstream')));
    mr.deallocate(mr.allocate(256), 256);
    expect(addon.counts(resourceHandle(mr, 'mr')).allocations).toBe(1);
    mr[Symbol.dispose]();
  });

  it('in build/Release/ first (a source build), before the prebuild', () => {
    const dir = packageWith({ 'build/Release/counting.node': { copy: countingAddon }, [PREBUILD]: 'not an addon' });
    expect(() => loadAddon(moduleIn(dir), '..', '@example/counting')).not.toThrow();
  });

  it("in build/Release/ by the package's name when other addons are there too (left-over test addons)", () => {
    // node-gyp-build alone would take the first .node file in the directory.
    const stale = { 'build/Release/aaa_left_over.node': 'not an addon' };
    for (const own of ['counting.node', 'example_counting.node']) {
      const dir = packageWith({ ...stale, [`build/Release/${own}`]: { copy: countingAddon } });
      expect(() => loadAddon(moduleIn(dir), '..', '@example/counting')).not.toThrow();
    }
    const unnamed = packageWith({ ...stale, 'build/Release/other.node': { copy: countingAddon } });
    expect(loadError(unnamed).message).toContain('aaa_left_over.node did not load');
  });

  it('not in a prebuild for another C library (musl)', () => {
    const dir = packageWith({
      [`prebuilds/${process.platform}-${process.arch}/counting.napi.musl.node`]: { copy: countingAddon },
    });
    expect(loadError(dir).message).toContain('No native build was found');
  });
});

describe('an addon that cannot be loaded', () => {
  it('is one RMMError ERR_RMM_ADDON_LOAD_FAILED that says what to do', () => {
    const dir = packageWith({});
    const error = loadError(dir);
    const lines = error.message.split('\n');
    expect(lines[0]).toMatch(
      /^Could not load the native addon of @example\/counting \(found none in .*pkg\d+\): No native build was found for platform=linux arch=x64 /,
    );
    expect(lines[1]).toBe('What to do:');
    // The supported platforms, and this one to compare.
    expect(error.message).toContain(
      'linux-x64 with glibc >= 2.34 and the libstdc++ of GCC >= 12 (GLIBCXX_3.4.30), Node.js >= 20.19 with Node-API 8.',
    );
    expect(error.message).toContain(
      `This is Node.js ${process.version} (Node-API ${process.versions.napi}) on linux-x64, glibc `,
    );
    // How to build it from source, in this very directory.
    expect(error.message).toContain('cmake >= 3.18 and a C++17 compiler (no CUDA toolkit)');
    expect(error.message).toContain('`npm install --save-dev cmake-js@8 node-addon-api@8`');
    expect(error.message).toContain(`\`npx cmake-js compile --directory ${dir}\``);
    // How to check the driver, once it loads.
    expect(error.message).toContain('`npx rmmjs info`');
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('a corrupt prebuild names the file and what the dynamic loader said', () => {
    const dir = packageWith({ [PREBUILD]: 'not an ELF file, but long enough to have a header: '.repeat(4) });
    const error = loadError(dir);
    expect(error.message).toContain(`(${join(dir, PREBUILD)} did not load): `);
    expect(error.message).toMatch(/invalid ELF header/);
    expect((error.cause as Error & { code?: string }).code).toBe('ERR_DLOPEN_FAILED');
  });

  it('a corrupt source build too (it is loaded first)', () => {
    const dir = packageWith({ 'build/Release/counting.node': '', [PREBUILD]: { copy: countingAddon } });
    expect(loadError(dir).message).toMatch(
      /build\/Release\/counting\.node did not load\): .*(file too short|invalid ELF header)/,
    );
  });
});
