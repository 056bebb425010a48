// copy-sweep.mjs, the staged copies' sweep, through the entry point the GPU machine runs
// (tooling/scripts/copy-sweep.mjs): its command line, a grid of one point (a child process that
// measures the copies as `rmmjs bench` does), and on a device the DMA floor (--dma).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onFake, onHost, spawnWithHangReport } from '@rmmjs/test-helpers';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'rmmjs-copy-sweep-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const entry = fileURLToPath(new URL('../../scripts/copy-sweep.mjs', import.meta.url));
const sweep = (...args: string[]) =>
  spawnWithHangReport(process.execPath, [entry, ...args], {
    env: { ...process.env, ...(onFake() && { RMMJS_FAKE_CUDA_MEMORY: String(4 * 2 ** 30) }) },
    timeout: 120_000,
  });
const options =
  'options: --quick, --json FILE, --chunks MIB,..., --depths N,..., --pieces KIB,..., --threads N,..., ' +
  '--stores KIND,..., --smallest KIB,..., --dma';

describe('copy-sweep.mjs: the command line', () => {
  it.each([
    [['--lanes', '4'], `unknown option --lanes (${options})`],
    [['--quick', '--chunks'], '--chunks needs a value (--chunks MIB,...)'],
    [['--chunks', '4,x'], '--chunks takes whole numbers >= 1 separated by commas, not 4,x'],
    [['--stores', '1,4'], '--stores takes whole numbers from 0 to 3 separated by commas, not 1,4'],
    [
      ['--chunks', '1,2,3,4,5', '--depths', '1,2,3,4,5', '--threads', '1'],
      '25 points; at most 24 (each takes a few seconds on the GPU)',
    ],
  ])('%j is refused before anything is measured', (args, message) => {
    expect(sweep(...args)).toMatchObject({ status: 2, stdout: '', stderr: `copy-sweep: ${message}\n` });
  });
});

describe('copy-sweep.mjs --quick, one point', () => {
  it('measures the point in a child process, prints its row and the best point, and writes them as JSON', () => {
    const json = join(dir, 'sweep.json');
    const run = sweep('--quick', '--chunks', '8', '--depths', '8', '--threads', '1', '--json', json);
    expect([run.status, run.stderr]).toEqual([0, '']);
    const defaultLanes = Math.min(12, Math.max(1, Math.floor((availableParallelism() * 3) / 4)));
    const { quick, results, best } = JSON.parse(readFileSync(json, 'utf8'));
    expect([quick, results.length, best]).toEqual([true, 1, results[0]]);
    const [point] = results;
    expect(point).toMatchObject({ chunk: 8, depth: 8, piece: 1024, lanes: 1, streaming: 1, smallest: 512 });
    expect(point.h2d).toBeGreaterThan(0);
    expect(point.d2h).toBeGreaterThan(0);
    // In host mode there is no pinned memory to compare with.
    expect(point.pinnedH2d === undefined).toBe(onHost());
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(`copy-sweep: 1 points, 32 MiB pageable copies each way; default lanes here ${defaultLanes}`);
    expect(lines[3].trim().split(/\s+/).slice(0, 6)).toEqual(['8', '8', '1024', '1', '1', '512']);
    expect(lines[3].endsWith('  (current default)')).toBe(defaultLanes === 1);
    expect(lines[5]).toMatch(
      /^best: \{"chunkBytes":8388608,"depth":8,"pieceBytes":1048576,"lanes":1,"stores":1,"smallestSpan":524288\} \(8 MiB x 8 x 1 lanes\): h2d /,
    );
  });

  it.runIf(!onHost())('--dma: pinned copies queued as pieces of 1 to 16 MiB against one whole copy', () => {
    const run = sweep('--dma', '--quick');
    expect([run.status, run.stderr]).toEqual([0, '']);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toBe('copy-sweep --dma: pinned copies of 32 MiB in pieces on one stream');
    expect(lines.slice(3).map((line) => line.trim().split(/\s+/)[0])).toEqual(['whole', '1', '2', '4', '8', '16']);
  });
});
