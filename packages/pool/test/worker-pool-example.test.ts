// @rmmjs/core's README shows a pool of workers that fill buffers from one shared PoolMemoryResource
// and transfer them to the main thread (its "Threads" section). This runs that very code, as a file
// of its own (its workers load it again), with the packages it imports resolved as this one does.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { resolveFromPackage } from '@rmmjs/test-helpers';
import { afterAll, describe, expect, it } from 'vitest';

const readme = readFileSync(join(dirname(resolveFromPackage('@rmmjs/core/package.json')), 'README.md'), 'utf8');
const example = /<!-- worker-pool example -->\n```js\n([\s\S]*?)```/.exec(readme)?.[1];

const dir = mkdtempSync(join(tmpdir(), 'rmmjs-worker-pool-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("core README's worker-pool example", () => {
  it("prints what its comments say: each worker's buffer, claimed by the main thread from the shared pool", () => {
    expect(example).toBeDefined();
    let code = example as string;
    for (const name of ['@rmmjs/core', '@rmmjs/pool']) {
      code = code.replaceAll(`from '${name}'`, `from '${pathToFileURL(resolveFromPackage(name)).href}'`);
    }
    const file = join(dir, 'worker-pool.mjs');
    writeFileSync(file, code);
    const run = spawnSync(process.execPath, [file], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('1048576 true 1\n1048576 true 2\n1048576 true 3\n');
    expect(run.status).toBe(0);
  });
});
