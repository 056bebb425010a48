// Tunes the staged pageable copies (packages/core/src/native/copies/staged_copy.cc): measures host<->device
// copies of pageable memory over a grid of chunk sizes (the longest DMA), chunks in the pinned ring,
// piece sizes (the longest host memcpy), lanes (memcpy threads), store kinds (1 streaming stores into
// host memory, 2 into the pinned chunks, 3 both, 0 the C library's memcpy everywhere) and the size of a
// copy's first and last spans, each point in a child process (the staging is made once per process:
// the child sets its shape first, through core's internal native.setStagingShape), with the measurement
// `rmmjs bench` and the repository's benchmark script use (benchCopies of @rmmjs/cli: 256 MiB, the
// median of 7 after a warm-up). Prints a table against the pinned copies of the same process, and the
// best point.
//
//   node tooling/scripts/copy-sweep.mjs [--quick] [--json file]
//     [--chunks 4,8,16] [--depths 6,8,12] [--pieces 1024] [--threads 6,12,18] [--stores 1,0,3]
//     [--smallest 512]     (chunks in MiB, pieces and smallest spans in KiB: a chunk's size is no ramp)
//
//   node tooling/scripts/copy-sweep.mjs --dma [--quick]
//     what a DMA's own cost is, the floor under any chunk size: pinned copies of 256 MiB queued on
//     one stream as pieces of 1 to 32 MiB, against one whole copy (on the H200 host: 0.86 of it in
//     1 MiB pieces, 0.93 in 2 MiB, 0.98 in 8 MiB, 0.99 in 16 MiB)
//
// On a GPU; --quick (32 MiB copies) is for trying the script on the fake driver.
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { exitWithUsage, parseCommandLine } from '@rmmjs/scripts/arguments.mjs';

const MiB = 1 << 20;
const sizes = (value) => ({ type: 'string', value, list: { min: 1, whole: true } });
const { values: options } = parseCommandLine('copy-sweep', {
  quick: { type: 'boolean' },
  json: { type: 'string', value: 'FILE' },
  chunks: sizes('MIB,...'),
  depths: sizes('N,...'),
  pieces: sizes('KIB,...'),
  threads: sizes('N,...'),
  stores: { type: 'string', value: 'KIND,...', list: { min: 0, max: 3, whole: true } },
  smallest: sizes('KIB,...'),
  dma: { type: 'boolean' },
  // One point of the grid (setStagingShape's JSON), in a process of its own.
  child: { type: 'boolean', internal: true },
  shape: { type: 'string', value: 'JSON', internal: true },
});
const quick = options.quick === true;

if (options.child) {
  // One point: the rows of benchCopies as JSON on stdout.
  const { native } = await import('@rmmjs/core/internal');
  native.setStagingShape(JSON.parse(options.shape));
  const core = await import('@rmmjs/core');
  const { benchCopies } = await import('@rmmjs/cli');
  const rows = {};
  benchCopies((group, name, value) => (rows[name] = value), quick, core.cuda.isAvailable());
  console.log(JSON.stringify(rows));
  process.exit(0);
}

if (options.dma) {
  const { DeviceBuffer, PinnedHostMemoryResource, Stream } = await import('@rmmjs/core');
  const { median } = await import('./timing.mjs');
  const size = (quick ? 32 : 256) * MiB;
  const pinned = new PinnedHostMemoryResource();
  const host = new DeviceBuffer({ size, mr: pinned });
  const device = new DeviceBuffer({ size });
  const stream = new Stream();
  // A piece of `buffer` as a 1-D array of bytes: what copyFromDevice takes.
  const slice = (buffer, offset, bytes) => ({
    __cuda_array_interface__: {
      data: [buffer.ptr + BigInt(offset), false],
      shape: [bytes],
      typestr: '|u1',
      version: 3,
    },
  });
  // GB/s of the whole size queued as pieces on one stream (each piece lands at the start of `into`:
  // where it lands does not change what a DMA costs).
  const rate = (from, into, piece) =>
    median(() => {
      const start = process.hrtime.bigint();
      for (let offset = 0; offset < size; offset += piece) {
        into.copyFromDevice(slice(from, offset, Math.min(piece, size - offset)), stream);
      }
      stream.synchronize();
      return size / Number(process.hrtime.bigint() - start);
    }, 7);
  console.log(`copy-sweep --dma: pinned copies of ${size / MiB} MiB in pieces on one stream\n`);
  console.log(['piece MiB', 'h2d GB/s', 'd2h GB/s', 'h2d/whole', 'd2h/whole'].map((h) => h.padStart(11)).join(''));
  const wholeH2d = rate(host, device, size);
  const wholeD2h = rate(device, host, size);
  console.log(['whole', wholeH2d.toFixed(1), wholeD2h.toFixed(1), '1', '1'].map((c) => c.padStart(11)).join(''));
  for (const pieceMiB of [1, 2, 4, 8, 16, 32].filter((n) => n * MiB < size)) {
    const h2d = rate(host, device, pieceMiB * MiB);
    const d2h = rate(device, host, pieceMiB * MiB);
    const cells = [pieceMiB, h2d.toFixed(1), d2h.toFixed(1), (h2d / wholeH2d).toFixed(3), (d2h / wholeD2h).toFixed(3)];
    console.log(cells.map((c) => String(c).padStart(11)).join(''));
  }
  device.free();
  host.free();
  stream[Symbol.dispose]();
  pinned[Symbol.dispose]();
  process.exit(0);
}

const jsonPath = options.json;
const chunks = options.chunks ?? [4, 8, 16];
const depths = options.depths ?? [6, 8, 12];
const pieces = options.pieces ?? [1024];
// The default lane count (three quarters of the cores, 1 to 12), and a third of that again either way.
const defaultLanes = Math.min(12, Math.max(1, Math.floor((availableParallelism() * 3) / 4)));
const threads = options.threads ?? [
  ...new Set([Math.max(1, Math.round(defaultLanes / 2)), defaultLanes, Math.round(defaultLanes * 1.5)]),
];
const stores = options.stores ?? [1];
const smallests = options.smallest ?? [512];
const grid = chunks.flatMap((chunk) =>
  depths.flatMap((depth) =>
    pieces.flatMap((piece) =>
      threads.flatMap((lanes) =>
        stores.flatMap((streaming) =>
          smallests.map((smallest) => ({ chunk, depth, piece, lanes, streaming, smallest })),
        ),
      ),
    ),
  ),
);
if (grid.length > 24) {
  exitWithUsage('copy-sweep', `${grid.length} points; at most 24 (each takes a few seconds on the GPU)`);
}
const isDefault = (p) =>
  p.chunk === 8 &&
  p.depth === 8 &&
  p.piece === 1024 &&
  p.lanes === defaultLanes &&
  p.streaming === 1 &&
  p.smallest === 512;

const script = fileURLToPath(import.meta.url);
// A point as setStagingShape takes it.
const shapeOf = (point) => ({
  chunkBytes: point.chunk * MiB,
  depth: point.depth,
  pieceBytes: point.piece * 1024,
  lanes: point.lanes,
  stores: point.streaming,
  smallestSpan: point.smallest * 1024,
});
function measure(point) {
  const shape = JSON.stringify(shapeOf(point));
  const run = spawnSync(process.execPath, [script, '--child', '--shape', shape, ...(quick ? ['--quick'] : [])], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (run.status !== 0) {
    const why = (run.stderr || run.error?.message || `exit ${run.status}`).trim().split('\n').pop();
    return { ...point, error: why };
  }
  const rows = JSON.parse(run.stdout.trim().split('\n').pop());
  const pick = (prefix) => Object.entries(rows).find(([name]) => name.startsWith(prefix))?.[1];
  return {
    ...point,
    h2d: pick('host->device'),
    d2h: pick('device->host'),
    pinnedH2d: pick('pinned->device'),
    pinnedD2h: pick('device->pinned'),
  };
}

const started = Date.now();
console.log(
  `copy-sweep: ${grid.length} points, ${quick ? 32 : 256} MiB pageable copies each way; default lanes here ${defaultLanes}\n`,
);
const header = [
  'chunk MiB',
  'depth',
  'piece KiB',
  'lanes',
  'streaming',
  'first KiB',
  'h2d GB/s',
  'd2h GB/s',
  'h2d/pinned',
  'd2h/pinned',
  'pinned h2d',
  'pinned d2h',
];
console.log(header.map((h) => h.padStart(11)).join(''));
const results = [];
const fmt = (value, digits = 1) => (value === undefined ? '-' : value.toFixed(digits));
const ratio = (a, b) => (a !== undefined && b ? a / b : undefined);
for (const point of grid) {
  const r = measure(point);
  results.push(r);
  if (r.error) {
    const where = [r.chunk, r.depth, r.piece, r.lanes, r.streaming, r.smallest]
      .map((v) => String(v).padStart(11))
      .join('');
    console.log(`${where}   failed: ${r.error}`);
    continue;
  }
  r.h2dRatio = ratio(r.h2d, r.pinnedH2d);
  r.d2hRatio = ratio(r.d2h, r.pinnedD2h);
  const cells = [
    String(r.chunk),
    String(r.depth),
    String(r.piece),
    String(r.lanes),
    String(r.streaming),
    String(r.smallest),
    fmt(r.h2d),
    fmt(r.d2h),
    fmt(r.h2dRatio, 3),
    fmt(r.d2hRatio, 3),
    fmt(r.pinnedH2d),
    fmt(r.pinnedD2h),
  ];
  console.log(cells.map((c) => c.padStart(11)).join('') + (isDefault(r) ? '  (current default)' : ''));
}

// The best point: the highest worse-direction ratio to pinned (GB/s where there is no pinned row).
const measured = results.filter((r) => !r.error);
const score = (r) => Math.min(r.h2dRatio ?? r.h2d, r.d2hRatio ?? r.d2h);
const best = measured.sort((a, b) => score(b) - score(a))[0];
const seconds = ((Date.now() - started) / 1000).toFixed(0);
if (best === undefined) {
  console.log(`\nno point measured (${seconds} s)`);
  process.exitCode = 1;
} else {
  console.log(
    `\nbest: ${JSON.stringify(shapeOf(best))}` +
      ` (${best.chunk} MiB x ${best.depth} x ${best.lanes} lanes): h2d ${fmt(best.h2d)} GB/s (${fmt(best.h2dRatio, 3)} of pinned),` +
      ` d2h ${fmt(best.d2h)} GB/s (${fmt(best.d2hRatio, 3)} of pinned); target >= 0.9 each way (${seconds} s)`,
  );
}
if (jsonPath) writeFileSync(jsonPath, JSON.stringify({ quick, defaultLanes, results, best }, null, 2));
