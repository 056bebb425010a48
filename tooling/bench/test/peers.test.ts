// The peers: bench_peers.py (CuPy's and PyTorch's allocators, measured from Python) and how
// bench.mjs runs it. Without a GPU it runs its loops on a stand-in (--dry-run); what it measures
// needs CuPy, PyTorch and a GPU, which only the GPU machine has. Here: its command line, its
// checks of the workload, the dry run, a run where CuPy and PyTorch are missing, and bench.mjs
// without python3.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomWorkload } from '@rmmjs/cli';
import { onFake, onGpu, onHost } from '@rmmjs/test-helpers';
import { afterAll, describe, expect, it } from 'vitest';
import { run, script } from './run.js';

const dir = mkdtempSync(join(tmpdir(), 'rmmjs-peers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const python = spawnSync('python3', ['--version']).status === 0;
const imports = (module: string) => python && spawnSync('python3', ['-c', `import ${module}`]).status === 0;
const neither = !imports('cupy') && !imports('torch');
const peers = (...args: string[]) =>
  spawnSync('python3', [script('bench_peers.py'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, COLUMNS: '80' },
  });
const lastLine = (text: string) => text.trim().split('\n').at(-1);

/** A workload file as bench.mjs hands it over: the float64 sizes, then the float64 frees. */
function workloadFile(name: string, sizes: Float64Array, frees: Float64Array) {
  const file = join(dir, name);
  writeFileSync(file, Buffer.concat([Buffer.from(sizes.buffer), Buffer.from(frees.buffer)]));
  return file;
}

describe.runIf(python)('bench_peers.py', () => {
  const workload = randomWorkload({ steps: 100, seed: 3 });
  const file = workloadFile('workload.f64', workload.sizes, workload.frees);

  it.each([
    [['--workload', file, '--bogus'], 'bench_peers.py: error: unrecognized arguments: --bogus'],
    [['--workload'], 'bench_peers.py: error: argument --workload: expected one argument'],
    [['--workload', file, '--pairs', 'many'], "bench_peers.py: error: argument --pairs: invalid int value: 'many'"],
    [['--workload', file, '--repeats', '0'], 'bench_peers.py: error: --repeats must be at least 1'],
    [['--dry-run'], 'bench_peers.py: error: the following arguments are required: --workload'],
  ])('refuses %j (exit 2)', (args, message) => {
    const refused = peers(...args);
    expect([refused.status, refused.stdout, lastLine(refused.stderr)]).toEqual([2, '', message]);
  });

  it('refuses a workload whose free frees nothing live, or whose columns differ in length', () => {
    const bad = peers('--workload', workloadFile('bad.f64', new Float64Array([0]), new Float64Array([0])), '--dry-run');
    expect([bad.status, bad.stdout, lastLine(bad.stderr)]).toEqual([
      1,
      '',
      `ValueError: ${join(dir, 'bad.f64')}: step 0: frees block 0.0 of 0 live`,
    ]);
    const odd = peers('--workload', workloadFile('odd.f64', new Float64Array([8]), new Float64Array([])), '--dry-run');
    expect([odd.status, lastLine(odd.stderr)]).toEqual([
      1,
      `ValueError: ${join(dir, 'odd.f64')}: 1 float64s, expected sizes and frees of equal length`,
    ]);
  });

  it('--dry-run runs every loop on a stand-in and says what it was given', () => {
    const dry = peers('--workload', file, '--pairs', '50', '--pair-bytes', '4096', '--repeats', '2', '--dry-run');
    expect([dry.status, dry.stderr]).toEqual([0, '']);
    expect(JSON.parse(dry.stdout)).toEqual({
      'dry run': 'ok',
      steps: 100,
      'live at the end': workload.remaining,
      pairs: 50,
      'pair bytes': 4096,
      'copy bytes': 256 << 20,
      repeats: 2,
    });
  });

  it.runIf(neither)('without CuPy and PyTorch, measures nothing and says which are missing', () => {
    const none = peers('--workload', file);
    expect([none.status, none.stdout, none.stderr]).toEqual([
      0,
      '{}\n',
      "cupy: No module named 'cupy'\ntorch: No module named 'torch'\n",
    ]);
  });
});

describe('bench.mjs --quick --no-suballocators --no-threads: the peers', () => {
  it('without python3, says the peers were not measured and goes on', () => {
    // A PATH with node alone.
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, 'node'));
    const nodeOnly = run('bench.mjs', ['--quick', '--no-suballocators', '--no-threads'], { PATH: bin });
    expect([nodeOnly.status, nodeOnly.stderr]).toEqual([0, '']);
    expect(nodeOnly.stdout).toContain('\npeers: not measured (spawnSync python3 ENOENT)\n');
  });

  it.runIf(python && !onGpu())(
    'runs bench_peers.py on our rows: a dry run in host mode; on the fake driver, no CuPy or PyTorch, and says so',
    () => {
      const bench = run('bench.mjs', ['--quick', '--no-suballocators', '--no-threads']);
      expect([bench.status, bench.stderr]).toEqual([0, '']);
      const lines = bench.stdout.split('\n').filter((line) => line.startsWith('peers: '));
      if (onHost()) {
        // The quick random workload (10,000 steps; 108 live at its end) and the quick counts.
        const given = { steps: 10_000, 'live at the end': 108, pairs: 20_000, 'pair bytes': 1 << 20 };
        const told = { ...given, 'copy bytes': 32 << 20, repeats: 3 };
        expect(lines).toEqual([
          `peers: bench_peers.py --dry-run: ${JSON.stringify({ 'dry run': 'ok', ...told })}`
            .replace(/,"/g, ', "')
            .replace(/":/g, '": '),
        ]);
      }
      if (onFake() && neither) {
        expect(lines).toEqual(["peers: cupy: No module named 'cupy'", "peers: torch: No module named 'torch'"]);
      }
    },
  );
});
