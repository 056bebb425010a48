// Where an allocate+free pair's time goes, by library and by function: samples the instruction
// pointer of the thread running each pair loop (the test addon's pcSamplerStart/Stop, for machines
// without perf) for the loops the bench compares: CudaAsyncMemoryResource's pair from JS, through
// the C ABI, the driver's own loop, the pool's pair from JS, and the Node-API floor; and the pool's
// pair through the C ABI bare and under the limiting, tracking and statistics adaptors (these run
// on the fake driver too: a warm pool's pair never reaches the driver).
//
//   on a GPU:  node tooling/scripts/profile-pairs.mjs --out DIR [--seconds 4] [--interval-us 200] [--loops a,b]
//              [--alternate ROUNDS]
//   anywhere:  node tooling/scripts/profile-pairs.mjs --analyze DIR [--top 12]
//
// Each loop runs in a process of its own, or with --alternate all in one process, in ROUNDS
// turns each (--seconds is then each loop's total), so that they share its state and its drift.
// The analysis names functions in files that are here too with the same size (node, the addons)
// or were copied into DIR/libs by the profiling run (the GPU machine's libc and loader: there
// only exported names exist, so an internal function shows under the export before it); any
// other library (libcuda) is counted as a whole.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitWithUsage, parseCommandLine } from '@rmmjs/scripts/arguments.mjs';
import { middleOf, pairNs } from './timing.mjs';

const whole = (value) => ({ type: 'string', value, number: { min: 1, whole: true } });
const { values: options } = parseCommandLine('profile-pairs', {
  out: { type: 'string', value: 'DIR' },
  seconds: { type: 'string', value: 'S', number: { min: 0.001 } },
  'interval-us': whole('US'),
  loops: { type: 'string', value: 'LOOP,...' },
  alternate: whole('TURNS'),
  analyze: { type: 'string', value: 'DIR' },
  top: whole('N'),
  // What a profiling run passes to its child processes: a loop and its samples' file, or the loops
  // to run in turns and their folder.
  loop: { type: 'string', value: 'LOOP', internal: true },
  file: { type: 'string', value: 'FILE', internal: true },
  dir: { type: 'string', value: 'DIR', internal: true },
});
const seconds = options.seconds ?? 4;
const intervalUs = options['interval-us'] ?? 200;
const MiB = 1 << 20;
const LOOPS = [
  'async-js',
  'async-abi',
  'async-driver',
  'pool-js',
  'floor',
  'pool-abi',
  'limiting-abi',
  'tracking-abi',
  'statistics-abi',
];

/** The pair loops by name: each makes its resource once and returns (n) => ns per pair. */
async function loopMakers() {
  const core = await import('@rmmjs/core');
  const { PoolMemoryResource } = await import('@rmmjs/pool');
  const { LimitingResourceAdaptor } = await import('@rmmjs/limiting');
  const { TrackingResourceAdaptor } = await import('@rmmjs/tracking');
  const { StatisticsResourceAdaptor } = await import('@rmmjs/statistics');
  const pool = () => new PoolMemoryResource(new core.CudaMemoryResource(), { initialPoolSize: 64 * MiB });
  // An adaptor over a pool, its pairs through the C ABI (what the bench's adaptor rows measure).
  const overPool = (make) => {
    const mr = make(pool());
    return (n) => addon.abiPairNs(mr, MiB, n);
  };
  const addon = await import('@rmmjs/test-addon');
  return {
    addon,
    makers: {
      'async-js': () => {
        const mr = new core.CudaAsyncMemoryResource();
        return (n) => pairNs(mr, MiB, n);
      },
      'async-abi': () => {
        const mr = new core.CudaAsyncMemoryResource();
        return (n) => addon.abiPairNs(mr, MiB, n);
      },
      'async-driver': () => {
        const mr = new core.CudaAsyncMemoryResource();
        return (n) => addon.driverPoolPairNs(mr.poolHandle(), MiB, n);
      },
      'pool-js': () => {
        const mr = pool();
        return (n) => pairNs(mr, MiB, n);
      },
      floor: () => (n) => addon.napiFloorPairNs(MiB, n),
      'pool-abi': () => overPool((upstream) => upstream),
      'limiting-abi': () => overPool((upstream) => new LimitingResourceAdaptor(upstream, 64 * 2 ** 30)),
      'tracking-abi': () => overPool((upstream) => new TrackingResourceAdaptor(upstream)),
      'statistics-abi': () => overPool((upstream) => new StatisticsResourceAdaptor(upstream)),
    },
  };
}

/** Pairs that take about `seconds` for a warmed loop. */
function pairsFor(run, seconds) {
  run(10_000);
  return Math.ceil((seconds * 1e9) / run(100_000));
}

/** One loop in this process: unsampled, then sampled; prints ns per pair of both as JSON. */
async function runLoop(loop) {
  const { addon, makers } = await loopMakers();
  const run = makers[loop]();
  const n = pairsFor(run, seconds);
  const plainNs = run(n);
  addon.pcSamplerStart(intervalUs);
  const sampledNs = run(n);
  const samples = addon.pcSamplerStop(options.file);
  console.log(JSON.stringify({ loop, pairs: n, plainNs, sampledNs, samples }));
}

/**
 * All the loops in one process, in turns (`rounds` turns each, unsampled then sampled), so that
 * they share the process's and the driver's state; each loop's samples of all its turns go to
 * DIR/LOOP.samples, and one JSON line per loop gives the medians over the turns.
 */
async function runAlternating(loops, rounds, dir) {
  const { addon, makers } = await loopMakers();
  const runs = loops.map((loop) => makers[loop]());
  const pairs = runs.map((run) => pairsFor(run, seconds / rounds));
  const plain = loops.map(() => []);
  const sampled = loops.map(() => []);
  const pcs = loops.map(() => []);
  let maps = '';
  const turnFile = join(dir, 'turn.samples');
  for (let round = 0; round < rounds; round++) {
    loops.forEach((_, i) => {
      plain[i].push(runs[i](pairs[i]));
      addon.pcSamplerStart(intervalUs);
      sampled[i].push(runs[i](pairs[i]));
      addon.pcSamplerStop(turnFile);
      const lines = readFileSync(turnFile, 'utf8').split('\n');
      maps = lines.filter((line) => line.startsWith('map ')).join('\n');
      pcs[i].push(...lines.filter((line) => line.startsWith('pc ')));
    });
  }
  unlinkSync(turnFile);
  loops.forEach((loop, i) => {
    writeFileSync(join(dir, `${loop}.samples`), `${maps}\n${pcs[i].join('\n')}\n`);
    const summary = { loop, pairs: pairs[i] * rounds, plainNs: middleOf(plain[i]), sampledNs: middleOf(sampled[i]) };
    console.log(JSON.stringify({ ...summary, samples: pcs[i].length, plainNsPerTurn: plain[i] }));
  });
}

function profileAll(out) {
  if (out === undefined) exitWithUsage('profile-pairs', 'takes --out DIR (or --analyze DIR)');
  const script = fileURLToPath(import.meta.url);
  const loops = (options.loops ?? LOOPS.join(',')).split(',');
  for (const loop of loops) {
    if (!LOOPS.includes(loop)) exitWithUsage('profile-pairs', `no loop ${loop} (${LOOPS.join(', ')})`);
  }
  mkdirSync(out, { recursive: true });
  const passOn = ['seconds', 'interval-us'].flatMap((name) =>
    options[name] === undefined ? [] : [`--${name}`, String(options[name])],
  );
  const children = options.alternate
    ? [['--alternate', String(options.alternate), '--loops', loops.join(','), '--dir', out]]
    : loops.map((loop) => ['--loop', loop, '--file', join(out, `${loop}.samples`)]);
  const summary = {};
  for (const childArgs of children) {
    const child = spawnSync(process.execPath, [script, ...childArgs, ...passOn], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`profile-pairs: ${childArgs.join(' ')} failed: ${child.stderr}`);
    for (const line of child.stdout
      .trim()
      .split('\n')
      .filter((text) => text.startsWith('{'))) {
      const result = JSON.parse(line);
      summary[result.loop] = result;
      console.log(line);
    }
  }
  writeFileSync(join(out, 'summary.json'), JSON.stringify(summary, null, 2));
  copyForeignLibraries(out, Object.keys(summary));
}

/**
 * Copies into DIR/libs the small shared libraries mapped in the sampled processes that are not
 * part of the checkout (the machine's libc, the loader), so that the analysis can name their
 * functions elsewhere. Big ones (libcuda) stay behind: their exported names would misname
 * internal code.
 */
function copyForeignLibraries(dir, loops) {
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  const wanted = new Set();
  for (const loop of loops) {
    for (const line of readFileSync(join(dir, `${loop}.samples`), 'utf8').split('\n')) {
      const path = line.startsWith('map ') ? line.slice(line.indexOf('/')) : '';
      if (/\.so[.\d]*$/.test(path) && !path.startsWith(root) && existsSync(path)) {
        if (statSync(path).size < 8 * MiB) wanted.add(path);
      }
    }
  }
  if (wanted.size === 0) return;
  mkdirSync(join(dir, 'libs'), { recursive: true });
  for (const path of wanted) copyFileSync(path, join(dir, 'libs', basename(path)));
}

const localCopies = new Map();
/** The local copy of a mapped file, when it is the same file (same name and size); looked up once. */
function localCopy(path, size) {
  const key = `${size} ${path}`;
  if (!localCopies.has(key)) localCopies.set(key, findLocalCopy(path, size));
  return localCopies.get(key);
}

function findLocalCopy(path, size) {
  if (existsSync(path) && statSync(path).size === size) return path;
  const copied = join(options.analyze, 'libs', basename(path));
  if (existsSync(copied) && statSync(copied).size === size) return copied;
  const name = basename(path);
  if (name === 'node' && statSync(process.execPath).size === size) return process.execPath;
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  for (const dir of ['packages', 'tooling']) {
    for (const pkg of readdirSync(join(root, dir))) {
      for (const sub of ['build/Release', 'prebuilds/linux-x64']) {
        const candidate = join(root, dir, pkg, sub, name);
        if (existsSync(candidate) && statSync(candidate).size === size) return candidate;
      }
    }
  }
  return undefined;
}

const symbolTables = new Map();
/** Loadable segments and sorted function symbols of an ELF file (readelf, nm). */
function symbolsOf(file) {
  if (symbolTables.has(file)) return symbolTables.get(file);
  const segments = [];
  for (const line of spawnSync('readelf', ['-lW', file], { encoding: 'utf8' }).stdout.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f[0] === 'LOAD') segments.push({ offset: Number(f[1]), vaddr: Number(f[2]), size: Number(f[4]) });
  }
  const symbols = new Map();
  for (const dynamic of [[], ['-D']]) {
    const text = spawnSync('nm', ['-C', '--defined-only', ...dynamic, file], {
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    }).stdout;
    for (const line of text.split('\n')) {
      const m = /^([0-9a-f]+) [tTwW] (.*)$/.exec(line);
      if (m) symbols.set(parseInt(m[1], 16), m[2]);
    }
  }
  const sorted = [...symbols].sort((a, b) => a[0] - b[0]);
  const table = { segments, addresses: sorted.map(([a]) => a), names: sorted.map(([, n]) => n) };
  symbolTables.set(file, table);
  return table;
}

function lastAtOrBelow(sorted, value) {
  let [lo, hi] = [0, sorted.length - 1];
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] <= value) [found, lo] = [mid, mid + 1];
    else hi = mid - 1;
  }
  return found;
}

function analyze(dir, top) {
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
  for (const [loop, { plainNs, sampledNs, samples: count }] of Object.entries(summary)) {
    const maps = [];
    const pcs = [];
    for (const line of readFileSync(join(dir, `${loop}.samples`), 'utf8').split('\n')) {
      if (line.startsWith('pc ')) pcs.push(parseInt(line.slice(3), 16));
      else if (line.startsWith('map ')) {
        const f = line.slice(4).trim().split(/\s+/);
        const [start, end] = f[1].split('-').map((x) => parseInt(x, 16));
        maps.push({ start, end, offset: parseInt(f[3], 16), size: Number(f[0]), path: f[6] ?? '' });
      }
    }
    maps.sort((a, b) => a.start - b.start);
    const starts = maps.map((m) => m.start);
    const byLibrary = new Map();
    const bySymbol = new Map();
    const add = (table, key) => table.set(key, (table.get(key) ?? 0) + 1);
    for (const pc of pcs) {
      const map = maps[lastAtOrBelow(starts, pc)];
      if (map === undefined || pc >= map.end) {
        add(byLibrary, '?');
        continue;
      }
      const library = map.path.startsWith('/') ? basename(map.path) : 'JIT code and anonymous memory';
      add(byLibrary, library);
      const local = map.path.startsWith('/') ? localCopy(map.path, map.size) : undefined;
      if (local === undefined) {
        add(bySymbol, library);
        continue;
      }
      const { segments, addresses, names } = symbolsOf(local);
      const fileOffset = pc - map.start + map.offset;
      const segment = segments.find((s) => fileOffset >= s.offset && fileOffset < s.offset + s.size);
      const vaddr = segment ? fileOffset - segment.offset + segment.vaddr : fileOffset;
      const i = lastAtOrBelow(addresses, vaddr);
      add(bySymbol, `${library}: ${i >= 0 ? names[i].slice(0, 100) : '?'}`);
    }
    // Shares of the samples, in ns of the unsampled pair.
    const line = (n, name) =>
      `  ${((100 * n) / pcs.length).toFixed(1).padStart(5)}% ${((n / pcs.length) * plainNs).toFixed(1).padStart(7)} ns  ${name}`;
    console.log(`\n${loop}: ${plainNs.toFixed(1)} ns a pair (${sampledNs.toFixed(1)} while sampled), ${count} samples`);
    for (const [name, n] of [...byLibrary].sort((a, b) => b[1] - a[1])) console.log(line(n, name));
    console.log('  top functions:');
    for (const [name, n] of [...bySymbol].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(line(n, name));
  }
}

if (options.loop !== undefined) await runLoop(options.loop);
else if (options.dir !== undefined) await runAlternating(options.loops.split(','), options.alternate, options.dir);
else if (options.analyze !== undefined) analyze(options.analyze, options.top ?? 12);
else profileAll(options.out);
