// bench.mjs, the table of `pnpm bench`: its command line, and a quick run of its first sections
// (resources, DeviceBuffer, copies) on this backend, through the entry point the GPU machine runs
// (tooling/scripts/bench.mjs).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onHost, spawnWithHangReport } from '@rmmjs/test-helpers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from './run.js';

const dir = mkdtempSync(join(tmpdir(), 'rmmjs-bench-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const options =
  'options: --quick, --runs N, --json FILE, --from-runs, --copies-only, --no-suballocators, --no-threads, --no-peers';

describe('bench.mjs: the command line', () => {
  it.each([
    [['--bogus'], `unknown option --bogus (${options})`],
    [['--quick', '--json'], '--json needs a value (--json FILE)'],
    [['--runs', 'three'], '--runs takes a whole number >= 1, not three'],
    [['--from-runs'], '--from-runs needs the files of runs already made (--from-runs FILE...)'],
  ])('%j is refused before anything is measured', (args, message) => {
    expect(run('bench.mjs', args)).toMatchObject({ status: 2, stdout: '', stderr: `bench: ${message}\n` });
  });
});

describe('bench.mjs --quick --no-suballocators --no-threads --no-peers', () => {
  const json = join(dir, 'bench.json');
  const entry = fileURLToPath(new URL('../../scripts/bench.mjs', import.meta.url));
  const args = ['--quick', '--no-suballocators', '--no-threads', '--no-peers', '--json', json];
  let bench: ReturnType<typeof spawnWithHangReport>;
  beforeAll(() => {
    bench = spawnWithHangReport(process.execPath, [entry, ...args], {
      env: { ...process.env, RMMJS_FAKE_CUDA_MEMORY: String(4 * 2 ** 30) },
      timeout: 120_000,
    });
  });

  it('measures the resources, DeviceBuffer and the copies, and writes them as JSON', () => {
    expect([bench.status, bench.stderr]).toEqual([0, '']);
    const results = JSON.parse(readFileSync(json, 'utf8'));
    const rows = results.rows.map(({ group, name, unit }: Record<string, string>) => `${group} | ${name} | ${unit}`);
    const pair = (name: string, steps: number) => [
      `${name} | pair 1 MiB from JS | ns`,
      `${name} | pair 1 MiB through the C ABI (C++) | ns`,
      `${name} | random workload (${steps} steps) from JS | ns/op`,
      `${name} | random workload through the C ABI (C++) | ns/op`,
    ];
    const copies = ['copies | host->device 32 MiB (pageable) | GB/s', 'copies | device->host 32 MiB (pageable) | GB/s'];
    expect(rows).toEqual(
      onHost()
        ? [
            'Node-API | floor: an allocate+free pair doing nothing | ns',
            ...pair('SystemMemoryResource', 10_000),
            'DeviceBuffer | create+free 64 B on SystemMemoryResource | ns',
            ...copies,
          ]
        : [
            'Node-API | floor: an allocate+free pair doing nothing | ns',
            ...pair('CudaMemoryResource', 1_000),
            'CudaMemoryResource | pair 1 MiB: cuMemAlloc+cuMemFree C++ loop | ns',
            ...pair('CudaAsyncMemoryResource', 10_000),
            'CudaAsyncMemoryResource | pair 1 MiB: cuMemAllocFromPoolAsync C++ loop | ns',
            ...pair('PinnedHostMemoryResource', 200),
            'DeviceBuffer | create+free 64 B on CudaMemoryResource | ns',
            ...copies,
            'copies | pinned->device 32 MiB | GB/s',
            'copies | device->pinned 32 MiB | GB/s',
          ],
    );
    for (const row of results.rows) expect(row.value, row.name).toBeGreaterThan(0);
    expect(results).toMatchObject({ gpu: !onHost(), quick: true });
    expect(Object.keys(results.sections)).toEqual([
      'resources',
      'sub-allocators and adaptors',
      'DeviceBuffer',
      'transfers',
      'copies',
      'peers',
    ]);
    // The targets whose two rows were measured: the driver loops' and the pinned copies' on a device.
    expect(results.targets.map((target: { name: string }) => target.name)).toEqual(
      onHost()
        ? []
        : [
            'Cuda pair / cuMemAlloc loop',
            'CudaAsync pair / pool C++ loop',
            'pageable host->device / pinned',
            'pageable device->host / pinned',
          ],
    );
  });

  it('prints each row and each target as a line of its table', () => {
    const results = JSON.parse(readFileSync(json, 'utf8'));
    const lines = bench.stdout.split('\n');
    expect(lines[0]).toBe(`rmmjs bench on ${results.device} (quick)`);
    for (const { group, name } of results.rows) {
      expect(lines.filter((line) => line.startsWith(`${group.padEnd(24)} ${name.padEnd(44)} `))).toHaveLength(1);
    }
    const targets = lines.slice(lines.indexOf('targets (ratios measured in this run)') + 1);
    for (const { name, verdict } of results.targets) {
      expect(targets.filter((line) => line.startsWith(name) && line.endsWith(`  ${verdict}`))).toHaveLength(1);
    }
    expect(lines.at(-2)).toMatch(/^took [\d.]+ s: resources [\d.]+, .*, peers [\d.]+ s$/);
  });
});
