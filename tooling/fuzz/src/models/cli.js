// @rmmjs/cli's library: logs generated here (valid, or broken at one row) parsed by parseLog,
// LogParser and readLog against a model of RMM's log format; summaries, plots, the workloads and
// formatting; and the commands, through main() with wrong command lines (exit 2) and, once per
// process each, one small valid run of the heavy ones (demo, replay, plot, bench) and of the
// functions behind them (runDemo, replayLog, replayOn, renderSvg, runBench, threadOpsPerSecond),
// on the harness's own root resource.
//
// Every exported function of the library is also called with a hostile value in one argument (the
// others valid): it must refuse it with the error the API's rules name, before it does any work.
//
// And what a hostile caller does with valid values: a log whose columns (shared memory) are written
// after replayOn took it, or while it runs; logs of many threads (the worker threads are bounded)
// and of more threads on the per-thread default stream than workers (refused); paths with a null
// byte, a FIFO or a directory given as a log, and plot outputs that are the log itself.
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism } from 'node:os';
import fc from 'fast-check';
import { boolean, Call, func, FuzzFailure, integer, options, size, string } from '../params.js';
import * as V from '../values.js';
import { pick } from '../world.js';

const pkg = '@rmmjs/cli';

// ---- logs ----

const COLUMNS = ['Thread', 'Time', 'Action', 'Pointer', 'Size', 'Stream'];
const corruptions = [
  'badHeader',
  'empty',
  'badTime',
  'badAction',
  'badPointer',
  'badSize',
  'badStream',
  'badThread',
  'freeUnknown',
  'doubleFree',
  'wrongSize',
  'allocAgain',
  'nullAlloc',
  'fields',
  'truncated',
];

const logArbitrary = fc.record({
  ops: fc.array(
    fc.oneof(
      {
        weight: 5,
        arbitrary: fc.record({
          op: fc.constant('alloc'),
          thread: fc.nat(2),
          stream: fc.constantFrom(0, 0, 1, 0x5a00),
          size: fc.oneof(fc.integer({ min: 1, max: 4096 }), fc.integer({ min: 1, max: 3 << 20 })),
        }),
      },
      { weight: 4, arbitrary: fc.record({ op: fc.constant('free'), thread: fc.nat(2), which: fc.nat() }) },
      { weight: 1, arbitrary: fc.record({ op: fc.constant('fail'), thread: fc.nat(2), size: fc.nat(1 << 30) }) },
      { weight: 1, arbitrary: fc.record({ op: fc.constant('zero'), thread: fc.nat(2) }) },
    ),
    { maxLength: 24 },
  ),
  corrupt: fc.option(fc.record({ kind: fc.constantFrom(...corruptions), at: fc.nat() }), { freq: 3 }),
  columns: fc.constantFrom('standard', 'standard', 'shuffled', 'extra'),
  crlf: fc.boolean(),
  blank: fc.boolean(),
});

const two = (n) => String(n).padStart(2, '0');
const clock = (us) =>
  `${two(Math.floor(us / 3.6e9))}:${two(Math.floor(us / 6e7) % 60)}:${two(Math.floor(us / 1e6) % 60)}.${String(us % 1e6).padStart(6, '0')}`;

/**
 * The text of a log, and what reading it must give: `{ text, error: line }` for a log broken at
 * `line`, else `{ text, summary }` (the counts a parsed log has).
 */
export function buildLog({ ops, corrupt, columns, crlf, blank }) {
  const order =
    columns === 'shuffled'
      ? ['Size', 'Stream', 'Thread', 'Action', 'Pointer', 'Time']
      : columns === 'extra'
        ? [...COLUMNS, 'Note']
        : COLUMNS;
  const newline = crlf ? '\r\n' : '\n';
  if (corrupt?.kind === 'empty') return { text: '', error: 1 };
  if (corrupt?.kind === 'badHeader')
    return { text: `${order.filter((c) => c !== 'Size').join(',')}${newline}`, error: 1 };
  const lines = [order.join(',')];
  if (blank) lines.push('');
  const row = (fields) => order.map((column) => fields[column] ?? 'note').join(',');
  const live = [];
  const freed = [];
  const threads = new Set();
  const streams = new Set();
  const summary = { events: 0, allocations: 0, frees: 0, failures: 0, peakBytes: 0, largestAllocation: 0 };
  let bytes = 0;
  let next = 1;
  let time = 0;
  const at = corrupt === null ? -1 : corrupt.at % Math.max(ops.length, 1);
  for (let k = 0; k < ops.length; k++) {
    let op = ops[k];
    if (op.op === 'free' && live.length === 0) op = { op: 'zero', thread: op.thread };
    time += 1 + ((k * 7919) % 5000);
    const fields = { Thread: String(140000 + op.thread), Time: clock(time), Stream: '0x0' };
    if (k === at) {
      // One broken row; the parser stops there.
      const kind = corrupt.kind;
      const size = live[0]?.size ?? 256;
      const bad = {
        badTime: { Time: '25:61:00.0' },
        badAction: { Action: 'alloc' },
        badPointer: { Pointer: 'zz' },
        badSize: { Size: '1.5' },
        badStream: { Stream: 'q' },
        badThread: { Thread: 'main' },
      }[kind];
      const base = {
        ...fields,
        Action: 'allocate',
        Pointer: `0x${(0x7f0000000000 + next * 256).toString(16)}`,
        Size: '256',
      };
      if (bad !== undefined) lines.push(row({ ...base, ...bad }));
      else if (kind === 'freeUnknown') lines.push(row({ ...base, Action: 'free', Pointer: '0x7e0000000100' }));
      else if (kind === 'doubleFree' && freed.length > 0)
        lines.push(row({ ...base, Action: 'free', Pointer: freed[0].pointer, Size: String(freed[0].size) }));
      else if (kind === 'doubleFree') lines.push(row({ ...base, Action: 'free', Pointer: '0x7e0000000200' }));
      else if (kind === 'wrongSize' && live.length > 0)
        lines.push(row({ ...base, Action: 'free', Pointer: live[0].pointer, Size: String(size + 1) }));
      else if (kind === 'allocAgain' && live.length > 0) lines.push(row({ ...base, Pointer: live[0].pointer }));
      else if (kind === 'wrongSize' || kind === 'allocAgain' || kind === 'nullAlloc')
        lines.push(row({ ...base, Pointer: '(nil)', Size: '256' }));
      else if (kind === 'fields') lines.push(row(base).split(',').slice(1).join(','));
      else if (kind === 'truncated') {
        lines.push(row(base).split(',').slice(0, 2).join(','));
        return { text: lines.join(newline), error: lines.length };
      }
      return { text: lines.join(newline) + newline, error: lines.length };
    }
    threads.add(fields.Thread);
    summary.events++;
    if (op.op === 'alloc') {
      const pointer = `0x${(0x7f0000000000 + next++ * 256).toString(16)}`;
      const stream = `0x${op.stream.toString(16)}`;
      lines.push(row({ ...fields, Action: 'allocate', Pointer: pointer, Size: String(op.size), Stream: stream }));
      live.push({ pointer, size: op.size, stream });
      streams.add(op.stream);
      summary.allocations++;
      bytes += op.size;
      summary.peakBytes = Math.max(summary.peakBytes, bytes);
      summary.largestAllocation = Math.max(summary.largestAllocation, op.size);
    } else if (op.op === 'free') {
      const [allocation] = live.splice(op.which % live.length, 1);
      lines.push(
        row({
          ...fields,
          Action: 'free',
          Pointer: allocation.pointer,
          Size: String(allocation.size),
          Stream: allocation.stream,
        }),
      );
      streams.add(Number(allocation.stream));
      freed.push(allocation);
      summary.frees++;
      bytes -= allocation.size;
    } else if (op.op === 'fail') {
      lines.push(row({ ...fields, Action: 'allocate failure', Pointer: '(nil)', Size: String(op.size) }));
      streams.add(0);
      summary.failures++;
    } else {
      // RMM logs an allocation of 0 bytes that got no memory: an event, no allocation.
      lines.push(row({ ...fields, Action: 'allocate', Pointer: '0x0', Size: '0' }));
      streams.add(0);
    }
  }
  return {
    text: lines.join(newline) + newline,
    summary: { ...summary, live: live.length, threads: threads.size, streams: streams.size },
  };
}

function checkLog(log, expected, what) {
  const actual = {
    events: log.events,
    allocations: log.allocations,
    frees: log.frees,
    failures: log.failures,
    peakBytes: log.peakBytes,
    largestAllocation: log.largestAllocation,
    live: log.live.length,
    threads: log.threads.length,
    streams: log.streams.length,
  };
  if (JSON.stringify(actual) !== JSON.stringify(expected))
    throw new FuzzFailure(`${what}: read ${JSON.stringify(actual)}, the log holds ${JSON.stringify(expected)}`);
}

/** A LogFormatError at `line` of `source`, and nothing else. */
function checkLogError(world, error, line, source, what) {
  const { LogFormatError } = world.P.cli;
  if (!(error instanceof LogFormatError) || !(error instanceof TypeError) || error.code !== 'ERR_INVALID_ARG_VALUE')
    throw new FuzzFailure(`${what}: ${error?.constructor?.name} ${error?.code}: ${error?.message}`);
  if (error.line !== line || error.source !== source || !error.message.startsWith(`${source}:${line}: `))
    throw new FuzzFailure(`${what}: the error names ${error.source}:${error.line}, the log is broken at line ${line}`);
}

// ---- heavy calls, once per process ----

const done = new Set();
const once = (key) => !done.has(key) && done.add(key);

/** Runs fn with the harness's root as the current resource (the heavy runs allocate a lot, and callbacks must not run). */
async function onRoot(world, fn) {
  const { core } = world.P;
  const previous = core.setCurrentDeviceResource(world.root);
  try {
    return await fn();
  } finally {
    world.adoptResource(core.setCurrentDeviceResource(previous));
  }
}

const output = () => {
  const out = { stdout: '', stderr: '' };
  return {
    out,
    streams: {
      stdout: { write: (text) => ((out.stdout += text), true) },
      stderr: { write: (text) => ((out.stderr += text), true) },
    },
  };
};

/** A small valid log, kept for the functions that take one. */
function smallLog(world) {
  world.cliLog ??= world.P.cli.parseLog(
    [
      COLUMNS.join(','),
      '140001,00:00:00.000001,allocate,0x7f0000000100,4096,0x0',
      '140002,00:00:00.000010,allocate,0x7f0000010000,1000,0x5a00',
      '140001,00:00:00.000020,free,0x7f0000000100,4096,0x0',
      '140002,00:00:00.000030,allocate failure,(nil),4000000000,0x0',
      '',
    ].join('\n'),
    'small.csv',
  );
  return world.cliLog;
}

const wrongCommandLines = [
  [],
  ['nope'],
  ['info', '--bogus'],
  ['info', 'extra'],
  ['replay'],
  ['replay', 'a.csv', 'b.csv'],
  ['replay', 'a.csv', '--resources', 'nope'],
  ['replay', 'a.csv', '--size', 'lots'],
  ['replay', 'a.csv', '--size', '0'],
  ['replay', 'a.csv', '--workers', '0'],
  ['replay', 'a.csv', '--workers', '257'],
  ['replay', 'a.csv', '--workers', 'two'],
  ['replay', 'a\0.csv'],
  ['plot'],
  ['plot', 'a.csv', '-o', 'memory.png'],
  ['plot', 'a\0.csv'],
  ['plot', 'a.csv', '-o', 'memory\0.svg'],
  ['bench', '--resources', 'nope'],
  ['bench', '--quick=yes'],
  ['demo', 'now'],
];

// ---- logs changed after the call, logs of many threads, the per-thread default stream ----

/** Every column of a log overwritten (threads, streams and slots that do not exist, frees twice). */
function scramble(log, next) {
  for (const column of [log.action, log.size, log.time, log.thread, log.stream, log.slot, log.line]) {
    for (let i = 0; i < column.length; i++) column[i] = next() % 5;
  }
}

/** A log of `threads` threads: thread k allocates, and frees what thread k - 1 allocated. */
function manyThreadsText(threads) {
  const rows = [COLUMNS.join(',')];
  const pointer = (k) => `0x${(0x7f0000000000 + k * 0x10000).toString(16)}`;
  const size = (k) => 256 * (1 + (k % 16));
  for (let k = 0; k < threads; k++) {
    rows.push(`${140000 + k},${clock(2 * k)},allocate,${pointer(k)},${size(k)},0x0`);
    if (k > 0) rows.push(`${140000 + k},${clock(2 * k + 1)},free,${pointer(k - 1)},${size(k - 1)},0x0`);
  }
  return rows.join('\n') + '\n';
}

/** How many logged threads replay an event on the per-thread default stream (0x2): each needs a worker of its own. */
function perThreadDefaultThreads(log) {
  const stream = log.streams.indexOf(2n);
  const threads = new Set();
  for (let i = 0; i < log.events; i++) {
    if (stream !== -1 && log.slot[i] >= 0 && log.stream[i] === stream) threads.add(log.thread[i]);
  }
  return threads.size;
}

// Files made in the run's directory (which outlives a run) get names no run used before.
let files = 0;
const freshName = (prefix, extension) => `fuzz-${prefix}-${++files}.${extension}`;

/** Opens a FIFO's other end and closes it, so that an open waiting for a writer returns. */
function release(fifo) {
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // No reader waits on it.
  }
}

// ---- hostile arguments ----

// The API's rules for the library's arguments (each marks the call as one that must fail).
const optional = (rule) => (call, value) => value === undefined || rule(call, value);
/** A record (a log, a report, an allocator, a workload): no hostile value is one. */
const record = (call) => call.invalid('type');
/** A specification: an object (one that Vega cannot draw, or JSON cannot write, is ERR_INVALID_ARG_VALUE). */
const object = (call, value) => {
  if (typeof value !== 'object' || value === null || isArray(value)) call.invalid('type');
  else call.allow('value');
};
const resource = (call, value) => {
  if (call.world.resourceEntry(value) === undefined) call.invalid('type');
};
const names = (allowed) => (call, value) => {
  if (!isArray(value) || !value.every((name) => typeof name === 'string')) call.invalid('type');
  else if (!value.every((name) => allowed.includes(name))) call.invalid('value');
};
const strings = (call, value) => {
  if (!isArray(value) || !value.every((name) => typeof name === 'string')) call.invalid('type');
};
const between = (min, max) => (call, value) => integer(call, value, min, max);
const seconds = (call, value) => {
  if (typeof value !== 'number') call.invalid('type');
  else if (!(value > 0 && value <= 3600)) call.invalid('range');
};
const seed = between(-(2 ** 31), 2 ** 32 - 1);
const SAFE = Number.MAX_SAFE_INTEGER;
/** A path: a string (ERR_INVALID_ARG_TYPE) without a null byte (ERR_INVALID_ARG_VALUE), as Node's fs has it. */
const path = (call, value) => {
  if (typeof value !== 'string') call.invalid('type');
  else if (value.includes('\0')) call.invalid('value');
};
/** The most worker threads a replay may start (`workers`, `--workers`). */
const MAX_WORKERS = 256;

function isArray(value) {
  try {
    return Array.isArray(value);
  } catch {
    return false; // a revoked Proxy: the call gets the same TypeError
  }
}

/**
 * Each exported function: its valid arguments (`valid()`), per argument (an index, or [index,
 * option]) the rule that says which values it refuses, and whether a call that is not refused is
 * `heavy` (a demo, a benchmark, replays against each allocator).
 */
function argumentSpecs(world) {
  const { cli } = world.P;
  const log = smallLog(world);
  const allocator = { allocate: () => 256n, deallocate: () => {} };
  const sink = { write: () => true };
  const nothing = () => {};
  return [
    {
      name: 'main',
      heavy: true,
      valid: () => [['--help'], { stdout: sink, stderr: sink }],
      slots: [
        [0, strings],
        [1, optional(record)],
      ],
    },
    { name: 'formatInfo', valid: () => [cli.collectInfo()], slots: [[0, record]] },
    { name: 'runDemo', heavy: true, valid: () => [nothing], slots: [[0, optional(func)]] },
    {
      name: 'LogParser.new',
      call: (source) => new cli.LogParser(source),
      valid: () => ['x.csv'],
      slots: [[0, string]],
    },
    {
      name: 'LogParser#line',
      call: (text, unterminated) => new cli.LogParser('x.csv').line(text, unterminated),
      valid: () => [LOG_COLUMNS_LINE, false],
      slots: [
        [0, string],
        [1, optional(boolean)],
      ],
    },
    {
      name: 'parseLog',
      valid: () => ['', 'x.csv'],
      slots: [
        [0, string],
        [1, optional(string)],
      ],
    },
    {
      name: 'readLog',
      valid: () => [smallLogFile(), {}],
      slots: [
        [0, path],
        [1, optional(options)],
        [[1, 'onProgress'], optional(func)],
      ],
    },
    { name: 'summarizeLog', valid: () => [log], slots: [[0, record]] },
    { name: 'plotData', valid: () => [log], slots: [[0, record]] },
    {
      name: 'plotSpec',
      valid: () => [log, undefined],
      slots: [
        [0, record],
        [1, optional(record)],
      ],
    },
    {
      name: 'replayLog',
      heavy: true,
      valid: () => [log, {}],
      slots: [
        [0, record],
        [1, optional(options)],
        [[1, 'resources'], optional(names(world.P.cli.REPLAY_RESOURCES))],
        [[1, 'size'], optional(size)],
        [[1, 'onProgress'], optional(func)],
        [[1, 'workers'], optional(between(1, MAX_WORKERS))],
      ],
    },
    {
      name: 'replayOn',
      valid: () => [log, world.root, nothing, {}],
      slots: [
        [0, record],
        [1, resource],
        [2, optional(func)],
        [3, optional(options)],
        [[3, 'workers'], optional(between(1, MAX_WORKERS))],
      ],
    },
    { name: 'formatReplay', valid: () => [{}], slots: [[0, record]] },
    { name: 'renderSvg', valid: () => [{}], slots: [[0, object]] },
    {
      name: 'renderHtml',
      valid: () => [{}, 'title'],
      slots: [
        [0, object],
        [1, string],
      ],
    },
    {
      name: 'runBench',
      heavy: true,
      valid: () => [{}],
      slots: [
        [0, optional(options)],
        [[0, 'resources'], optional(names(world.P.cli.BENCH_RESOURCES))],
        [[0, 'quick'], optional(boolean)],
        [[0, 'onRow'], optional(func)],
        [[0, 'onStep'], optional(func)],
      ],
    },
    {
      name: 'benchCopies',
      heavy: true,
      valid: () => [nothing, true, false],
      slots: [
        [0, func],
        [1, boolean],
        [2, boolean],
      ],
    },
    {
      name: 'randomWorkload',
      valid: () => [{ steps: 10 }],
      slots: [
        [0, optional(options)],
        [[0, 'steps'], optional(between(0, 2 ** 31 - 1))],
        [[0, 'minSize'], optional(between(1, SAFE))],
        [[0, 'maxLive'], optional(between(1, SAFE))],
        [[0, 'seed'], optional(seed)],
      ],
    },
    {
      name: 'runRandomWorkload',
      valid: () => [allocator, cli.randomWorkload({ steps: 10 })],
      slots: [
        [0, record],
        [1, record],
      ],
    },
    {
      name: 'threadOpsPerSecond',
      heavy: true,
      valid: () => [world.root, 1, {}],
      slots: [
        [0, resource],
        [1, between(1, 256)],
        [2, optional(options)],
        [[2, 'nbytes'], optional(size)],
        [[2, 'seconds'], optional(seconds)],
      ],
    },
  ];
}

/** A small valid log file in the run's directory (the fuzzer's working directory). */
function smallLogFile() {
  const file = 'hostile-arguments.csv';
  writeFileSync(file, [LOG_COLUMNS_LINE, '1,00:00:00.000001,allocate,0x100,256,0x0', ''].join('\n'));
  return file;
}

const LOG_COLUMNS_LINE = ['Thread', 'Time', 'Action', 'Pointer', 'Size', 'Stream'].join(',');

export default function cliModels() {
  return [
    {
      name: 'cli hostile arguments',
      covers: [
        'main',
        'formatInfo',
        'runDemo',
        'LogParser.new',
        'LogParser#line',
        'parseLog',
        'readLog',
        'summarizeLog',
        'plotData',
        'plotSpec',
        'replayLog',
        'replayOn',
        'formatReplay',
        'renderSvg',
        'renderHtml',
        'runBench',
        'benchCopies',
        'randomWorkload',
        'runRandomWorkload',
        'threadOpsPerSecond',
      ].map((key) => `${pkg}:${key}`),
      args: fc.tuple(fc.nat(), fc.nat(), V.hostile),
      async run(world, [f, a, h]) {
        const specs = argumentSpecs(world);
        const spec = specs[f % specs.length];
        const [slot, rule] = spec.slots[a % spec.slots.length];
        const [index, option] = Array.isArray(slot) ? slot : [slot, undefined];
        const call = new Call(
          world,
          `${spec.name} with a hostile ${option === undefined ? `argument ${index}` : `option ${option}`}`,
        );
        const value = call.value(h);
        rule(call, value);
        // Valid values are the other models' (some of these functions run for seconds). A value
        // that throws when read or called must come through as it is, or be refused: tried where
        // the work is light (replayOn replays a small log with a progress callback that throws).
        const throws = call.flags.throws || call.flags.revoked;
        if (call.required.size === 0 && (!throws || spec.heavy)) return;
        const args = spec.valid();
        if (option === undefined) args[index] = value;
        else args[index] = { ...args[index], [option]: value };
        const fn = spec.call ?? world.P.cli[spec.name];
        const previous = world.P.core.getCurrentDeviceResource();
        await call.runAsync(() => fn(...args));
        if (world.P.core.getCurrentDeviceResource() !== previous)
          throw new FuzzFailure(`${spec.name}: the current resource changed in a refused call`);
      },
    },
    {
      name: 'cli constants and errors',
      covers: [
        'Action',
        'LOG_COLUMNS',
        'MAX_POINTS',
        'BENCH_RESOURCES',
        'REPLAY_RESOURCES',
        'DEFAULT_REPLAY_RESOURCES',
        'commands',
        'usage',
        'UsageError.new',
        'LogFormatError.new',
      ].map((key) => `${pkg}:${key}`),
      args: fc.tuple(V.mixedString, V.mixedString, V.integerAmong(0, 1, 7)),
      run(world, [r, s, l]) {
        const { cli } = world.P;
        world.calls++;
        const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
        if (!same(cli.Action, { allocate: 0, free: 1, allocateFailure: 2 }) || !same(cli.LOG_COLUMNS, COLUMNS))
          throw new FuzzFailure('Action or LOG_COLUMNS changed');
        if (
          !Number.isSafeInteger(cli.MAX_POINTS) ||
          !cli.DEFAULT_REPLAY_RESOURCES.every((n) => cli.REPLAY_RESOURCES.includes(n))
        )
          throw new FuzzFailure('MAX_POINTS or DEFAULT_REPLAY_RESOURCES');
        if (!cli.BENCH_RESOURCES.includes('pool') || !cli.REPLAY_RESOURCES.includes('pool'))
          throw new FuzzFailure('BENCH_RESOURCES or REPLAY_RESOURCES');
        const text = cli.usage();
        if (!cli.commands.every((c) => typeof c.run === 'function' && text.includes(c.name)))
          throw new FuzzFailure('usage() does not list every command');
        // The error classes take what Error takes (their message), as Error does.
        const flags = {};
        const [reason, source, line] = [world.resolve(r, flags), world.resolve(s, flags), world.resolve(l, flags)];
        if (typeof reason !== 'string' || typeof source !== 'string' || typeof line !== 'number') return;
        const usageError = new cli.UsageError(reason);
        if (!(usageError instanceof Error) || usageError.name !== 'UsageError' || usageError.message !== reason)
          throw new FuzzFailure('new UsageError');
        const logError = new cli.LogFormatError(reason, source, line);
        if (
          !(logError instanceof TypeError) ||
          logError.code !== 'ERR_INVALID_ARG_VALUE' ||
          logError.message !== `${source}:${line}: ${reason}` ||
          !Object.is(logError.line, line)
        )
          throw new FuzzFailure('new LogFormatError');
      },
    },
    {
      name: 'parseLog, LogParser, readLog',
      covers: [
        `${pkg}:parseLog`,
        `${pkg}:LogParser.new`,
        `${pkg}:LogParser#line`,
        `${pkg}:LogParser#finish`,
        `${pkg}:readLog`,
      ],
      args: fc.tuple(logArbitrary, fc.constantFrom('parseLog', 'LogParser', 'readLog')),
      async run(world, [spec, how]) {
        const { cli } = world.P;
        const { text, error, summary } = buildLog(spec);
        const source = how === 'readLog' ? `fuzz-${world.calls}.csv` : `log-${world.calls}.csv`;
        let read;
        let progress = [0, 0];
        if (how === 'readLog') {
          writeFileSync(source, text, 'latin1');
          read = () => cli.readLog(source, { onProgress: (n, total) => (progress = [n, total]) });
        } else if (how === 'parseLog') read = () => cli.parseLog(text, source);
        else {
          read = () => {
            const parser = new cli.LogParser(source);
            const lines = text.split('\n');
            const unterminated = lines.at(-1) !== '';
            if (!unterminated) lines.pop();
            lines.forEach((line, i) => parser.line(line, unterminated && i === lines.length - 1));
            return parser.finish();
          };
        }
        world.calls++;
        let log;
        try {
          log = await read();
        } catch (thrown) {
          if (thrown instanceof FuzzFailure) throw thrown;
          if (error === undefined) throw new FuzzFailure(`${how} refused a valid log: ${thrown?.message}\n${text}`);
          checkLogError(world, thrown, error, source, how);
          return;
        }
        if (error !== undefined) throw new FuzzFailure(`${how} read a log broken at line ${error}:\n${text}`);
        checkLog(log, summary, how);
        if (log.source !== source) throw new FuzzFailure(`${how}: source ${log.source}`);
        if (how === 'readLog' && text !== '' && (progress[0] !== progress[1] || progress[1] !== text.length))
          throw new FuzzFailure(`readLog: progress ${progress} of ${text.length} bytes`);
        world.cliLogs ??= [];
        world.cliLogs.push(log);
      },
    },
    {
      name: 'summarizeLog, plotData, plotSpec, renderHtml',
      covers: [`${pkg}:summarizeLog`, `${pkg}:plotData`, `${pkg}:plotSpec`, `${pkg}:renderHtml`],
      args: fc.tuple(fc.nat(), V.mixedString, V.hostile),
      run(world, [i, t, h]) {
        const { cli } = world.P;
        {
          // No hostile value is a log.
          const call = new Call(world, 'summarizeLog');
          const value = call.value(h);
          call.invalid('type');
          call.run(() => cli.summarizeLog(value));
        }
        const log = pick(world.cliLogs ?? [], i) ?? smallLog(world);
        const call = new Call(world, 'summarizeLog, plotData, plotSpec');
        const result = call.run(() => [cli.summarizeLog(log), cli.plotData(log), cli.plotSpec(log)]);
        if (!result.ok) return;
        const [summary, data, spec] = result.value;
        const leaked = log.live.reduce((sum, a) => sum + a.size, 0);
        if (
          summary.events !== log.events ||
          summary.leaked.count !== log.live.length ||
          summary.leaked.bytes !== leaked
        )
          throw new FuzzFailure('summarizeLog: events or leaked');
        const peak = Math.max(...data.inUse.map((p) => p.bytes));
        if (data.inUse.length > cli.MAX_POINTS || data.peakBytes !== log.peakBytes || peak !== log.peakBytes)
          throw new FuzzFailure(`plotData: peak ${peak}, the log's is ${log.peakBytes}`);
        const counted = data.sizes.reduce((n, c) => n + c.count, 0);
        if (counted !== log.allocations)
          throw new FuzzFailure(`plotData: ${counted} sizes for ${log.allocations} allocations`);
        if (typeof spec !== 'object' || typeof spec.$schema !== 'string')
          throw new FuzzFailure('plotSpec: not a Vega-Lite spec');
        const title = call.value(t);
        const page = new Call(world, 'renderHtml');
        if (typeof title !== 'string') page.invalid('type');
        const html = page.run(() => cli.renderHtml(spec, title));
        const escaped = typeof title === 'string' ? title.replace(/&/g, '&amp;').replace(/</g, '&lt;') : '';
        if (html.ok && !(html.value.startsWith('<!doctype html>') && html.value.includes(`<title>${escaped}</title>`)))
          throw new FuzzFailure('renderHtml: not a page with its title');
      },
    },
    {
      name: 'renderSvg',
      covers: [`${pkg}:renderSvg`],
      args: fc.constant(0),
      async run(world) {
        // Vega renders headless: slow to load, once per process.
        if (!once('renderSvg')) return;
        const { cli } = world.P;
        const call = new Call(world, 'renderSvg');
        const result = await call.runAsync(() => cli.renderSvg(cli.plotSpec(smallLog(world))));
        if (result.ok && !/^<svg[\s>]/.test(result.value)) throw new FuzzFailure('renderSvg: not an SVG');
      },
    },
    {
      name: 'formatBytes',
      covers: [`${pkg}:formatBytes`],
      args: fc.tuple(fc.nat({ max: 1 << 30 }), V.hostile),
      run(world, [n, h]) {
        const { formatBytes } = world.P.cli;
        world.calls++;
        const answers = [
          [0, '0 B'],
          [1000, '1000 B'],
          [1024, '1 KiB'],
          [1536, '1.5 KiB'],
          [64 * 2 ** 20, '64 MiB'],
          [3 * 2 ** 30, '3 GiB'],
        ];
        for (const [bytes, text] of answers)
          if (formatBytes(bytes) !== text) throw new FuzzFailure(`formatBytes(${bytes}) is ${formatBytes(bytes)}`);
        if (!/^\d+(\.\d)? (B|KiB|MiB|GiB)$/.test(formatBytes(n)))
          throw new FuzzFailure(`formatBytes(${n}) is ${formatBytes(n)}`);
        const call = new Call(world, 'formatBytes');
        const value = call.value(h);
        size(call, value);
        const result = call.run(() => formatBytes(value));
        if (result.ok && !/^\d+(\.\d)? (B|KiB|MiB|GiB|TiB|PiB)$/.test(result.value))
          throw new FuzzFailure(`formatBytes(${value}) is ${result.value}`);
      },
    },
    {
      name: 'collectInfo and formatInfo',
      covers: [`${pkg}:collectInfo`, `${pkg}:formatInfo`],
      args: fc.constant(0),
      run(world) {
        const { cli, core } = world.P;
        const call = new Call(world, 'collectInfo');
        if (world.backend !== 'host') call.allow('cuda');
        const result = call.run(() => cli.collectInfo());
        if (!result.ok) return;
        const info = result.value;
        if (info.mode !== (core.cuda.isAvailable() ? 'cuda' : 'host'))
          throw new FuzzFailure(`collectInfo: mode ${info.mode}`);
        const lines = cli.formatInfo(info);
        if (!Array.isArray(lines) || !lines[0].startsWith('rmmjs ')) throw new FuzzFailure('formatInfo');
      },
    },
    {
      name: 'randomWorkload, runRandomWorkload',
      covers: ['randomWorkload', 'runRandomWorkload'].map((f) => `${pkg}:${f}`),
      args: fc.record({
        seed: fc.integer(),
        steps: fc.nat(200),
        minSize: fc.integer({ min: 1, max: 100 }),
        span: fc.nat(5000),
        maxLive: fc.integer({ min: 1, max: 20 }),
      }),
      run(world, { seed, steps, minSize, span, maxLive }) {
        const { cli } = world.P;
        world.calls++;
        const maxSize = minSize + span;
        const workload = cli.randomWorkload({ steps, minSize, maxSize, maxLive, seed });
        let live = 0;
        for (let k = 0; k < steps; k++) {
          const size = workload.sizes[k];
          if (size > 0) {
            if (size < minSize || size > maxSize || !Number.isInteger(size))
              throw new FuzzFailure(`randomWorkload: size ${size}`);
            live++;
          } else {
            if (workload.frees[k] >= live) throw new FuzzFailure('randomWorkload: a free of nothing live');
            live--;
          }
          if (live > maxLive) throw new FuzzFailure('randomWorkload: more than maxLive live');
        }
        if (workload.steps !== steps || workload.remaining !== live)
          throw new FuzzFailure('randomWorkload: steps or remaining');
        // An allocator of its own: every allocation comes back once, with its size.
        const held = new Map();
        let next = 256n;
        const allocator = {
          allocate(nbytes) {
            next += 256n;
            held.set(next, nbytes);
            return next;
          },
          deallocate(ptr, nbytes) {
            if (held.get(ptr) !== nbytes) throw new FuzzFailure('runRandomWorkload freed what it did not allocate');
            held.delete(ptr);
          },
        };
        const ns = cli.runRandomWorkload(allocator, workload);
        if (held.size !== 0 || !(ns >= 0 || steps === 0)) throw new FuzzFailure('runRandomWorkload left memory live');
      },
    },
    {
      name: 'threadOpsPerSecond',
      covers: [`${pkg}:threadOpsPerSecond`],
      args: fc.constant(0),
      async run(world) {
        if (!once('threadOpsPerSecond')) return;
        const { cli, limiting } = world.P;
        const call = new Call(world, 'threadOpsPerSecond');
        // A worker of its own on a resource of its own (over the root), for a moment.
        const mr = new limiting.LimitingResourceAdaptor(world.root, 64 << 20);
        try {
          const result = await call.runAsync(() => cli.threadOpsPerSecond(mr, 1, { nbytes: 4096, seconds: 0.02 }));
          if (result.ok && !(result.value > 0)) throw new FuzzFailure(`threadOpsPerSecond: ${result.value}`);
          if (mr.getAllocatedBytes() !== 0) throw new FuzzFailure('threadOpsPerSecond left memory allocated');
        } finally {
          mr[Symbol.dispose]();
        }
      },
    },
    {
      name: 'runDemo',
      covers: [`${pkg}:runDemo`],
      args: fc.constant(0),
      async run(world) {
        if (!once('runDemo')) return;
        const call = new Call(world, 'runDemo');
        call.allow('oom');
        const lines = [];
        const result = await onRoot(world, () => call.runAsync(() => world.P.cli.runDemo((line) => lines.push(line))));
        if (!result.ok) return;
        if (result.value.statistics.currentBytes !== 0 || !lines.some((line) => line.includes('bytes equal')))
          throw new FuzzFailure(`runDemo: ${JSON.stringify(result.value.statistics)}\n${lines.join('\n')}`);
      },
    },
    {
      name: 'replayLog, replayOn, formatReplay',
      covers: [`${pkg}:replayLog`, `${pkg}:replayOn`, `${pkg}:formatReplay`],
      args: fc.tuple(fc.constantFrom('replayLog', 'replayOn', 'hostileResource'), V.hostile, fc.nat()),
      async run(world, [how, h, i]) {
        const { cli } = world.P;
        const log = pick(world.cliLogs ?? [], i) ?? smallLog(world);
        if (how === 'hostileResource') {
          // Refused before any worker starts: cheap, every time.
          const call = new Call(world, 'replayOn');
          const value = call.value(h);
          if (world.resourceEntry(value) === undefined) call.invalid('type');
          else return;
          call.flags.proxyOfLive = false;
          await call.runAsync(() => cli.replayOn(log, value));
          return;
        }
        if (!once(how)) return;
        const call = new Call(world, how);
        if (how === 'replayOn') {
          const mr = new world.P.statistics.StatisticsResourceAdaptor(world.root);
          try {
            const result = await call.runAsync(() => cli.replayOn(log, mr));
            const counts = mr.allocationCounts;
            // (Memory freed behind the root's back, in a tainted world, may come back from it again: refused.)
            if (world.tainted) return;
            if (result.ok && (result.value.error !== null || counts.currentBytes !== 0))
              throw new FuzzFailure(`replayOn: ${JSON.stringify(result.value)}, ${counts.currentBytes} bytes left`);
            // On the resource given, whatever this thread's current device is.
            if (result.ok && result.value.failures === 0 && counts.peakBytes !== log.peakBytes)
              throw new FuzzFailure(`replayOn: a peak of ${counts.peakBytes} bytes, the log's is ${log.peakBytes}`);
          } finally {
            mr[Symbol.dispose]();
          }
          return;
        }
        const result = await call.runAsync(() => cli.replayLog(log, { resources: ['cuda', 'pool'] }));
        if (!result.ok) return;
        const report = result.value;
        const ran = report.results.filter((r) => r.skipped === null);
        // (Allocations the device has no room for fail and are counted: the world may hold much of it.)
        const wrongPeak = (r) => r.failures === 0 && r.peakRequestedBytes !== log.peakBytes;
        if (report.results.length !== 2 || ran.some((r) => r.error !== null || wrongPeak(r)))
          throw new FuzzFailure(`replayLog: ${JSON.stringify(report.results)}, the log's peak is ${log.peakBytes}`);
        const lines = cli.formatReplay(report);
        if (!Array.isArray(lines) || !lines.some((line) => line.startsWith('pool')))
          throw new FuzzFailure('formatReplay');
      },
    },
    {
      name: 'replayOn a log changed after the call, of many threads, on the per-thread default stream',
      covers: [`${pkg}:replayOn`],
      args: fc.tuple(
        fc.constantFrom('after', 'during', 'manyThreads'),
        logArbitrary.map((spec) => ({ ...spec, corrupt: null })),
        fc.boolean(),
        fc.option(fc.integer({ min: 1, max: 4 })),
        fc.integer({ min: 2, max: 400 }),
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
      ),
      async run(world, [how, spec, perThreadDefault, workers, threads, seed]) {
        const { cli, statistics } = world.P;
        // With perThreadDefault, the allocations on stream 0x1 are on the per-thread default stream (0x2).
        const ops = spec.ops.map((op) => (perThreadDefault && op.stream === 1 ? { ...op, stream: 2 } : op));
        const text = how === 'manyThreads' ? manyThreadsText(threads) : buildLog({ ...spec, ops }).text;
        const log = cli.parseLog(text, `${how}.csv`);
        const expected = { peak: log.peakBytes, allocations: log.allocations, threads: log.threads.length };
        const max = workers ?? Math.min(availableParallelism(), MAX_WORKERS);
        const call = new Call(world, `replayOn (${how}, ${workers ?? 'default'} workers)`);
        // Refused before any worker starts: cheap, every time; a replay starts workers: once per process.
        if (perThreadDefaultThreads(log) > max) call.invalid('value');
        else if (!once(`replayOn ${how}`)) return;
        let state = seed;
        const next = () => {
          state ^= state << 13;
          state ^= state >>> 17;
          state ^= state << 5;
          return state >>> 0;
        };
        const mr = new statistics.StatisticsResourceAdaptor(world.root);
        let timer;
        try {
          // The call checks (and copies) the log before it returns its promise: what follows is after it.
          const pending = call.runAsync(() => cli.replayOn(log, mr, undefined, workers === null ? {} : { workers }));
          if (how === 'after') scramble(log, next);
          if (how === 'during') timer = setInterval(() => scramble(log, next), 1);
          const result = await pending;
          if (!result.ok || world.tainted) return;
          const outcome = result.value;
          const counts = mr.allocationCounts;
          if (outcome.error !== null || counts.currentBytes !== 0)
            throw new FuzzFailure(`replayOn (${how}): ${JSON.stringify(outcome)}, ${counts.currentBytes} bytes left`);
          if (outcome.workers !== Math.min(expected.threads, max))
            throw new FuzzFailure(
              `replayOn (${how}): ${outcome.workers} workers for ${expected.threads} threads, at most ${max}`,
            );
          if (
            outcome.failures === 0 &&
            (counts.peakBytes !== expected.peak || counts.totalCount !== expected.allocations)
          )
            throw new FuzzFailure(
              `replayOn (${how}): a peak of ${counts.peakBytes} bytes in ${counts.totalCount} allocations, ` +
                `the log checked has ${expected.peak} in ${expected.allocations}`,
            );
        } finally {
          clearInterval(timer);
          mr[Symbol.dispose]();
        }
      },
    },
    {
      name: 'readLog of what is not a regular file, or of a path with a null byte',
      covers: [`${pkg}:readLog`],
      args: fc.constantFrom('fifo', 'directory', 'device', 'nullByte'),
      async run(world, kind) {
        const file = freshName('not-a-file', 'csv');
        if (kind === 'fifo') execFileSync('mkfifo', [file]);
        if (kind === 'directory') mkdirSync(file);
        if (kind === 'nullByte') writeFileSync(file, LOG_COLUMNS_LINE + '\n');
        const target = { device: '/dev/null', nullByte: `${file}\0` }[kind] ?? file;
        const call = new Call(world, `readLog of a ${kind}`);
        call.invalid('value');
        let timer;
        const late = new Promise((_, reject) => {
          timer = setTimeout(() => reject(new FuzzFailure(`readLog of a ${kind} is still waiting after 5 s`)), 5000);
        });
        try {
          await Promise.race([call.runAsync(() => world.P.cli.readLog(target)), late]);
        } finally {
          clearTimeout(timer);
          if (kind === 'fifo') release(file);
        }
      },
    },
    {
      name: 'runBench',
      covers: [`${pkg}:runBench`, `${pkg}:benchCopies`], // runBench measures its copies with benchCopies
      args: fc.constant(0),
      async run(world) {
        if (!once('runBench')) return;
        const call = new Call(world, 'runBench');
        call.allow('oom'); // its copies, on a device the world has filled
        const rows = [];
        const result = await onRoot(world, () =>
          call.runAsync(() =>
            world.P.cli.runBench({ quick: true, resources: ['fixed-size'], onRow: (row) => rows.push(row) }),
          ),
        );
        if (!result.ok) return;
        if (result.value.rows.length !== rows.length || !rows.some((row) => row.group === 'DeviceBuffer'))
          throw new FuzzFailure(`runBench: ${JSON.stringify(result.value)}`);
      },
    },
    {
      name: 'main',
      covers: [`${pkg}:main`],
      args: fc.tuple(
        fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...wrongCommandLines.keys()).map((wrong) => ({ wrong })) },
          {
            weight: 3,
            arbitrary: fc
              .constantFrom('help', 'version', 'info', 'infoJson', 'commandHelp')
              .map((cheap) => ({ cheap })),
          },
          {
            weight: 2,
            arbitrary: fc
              .constantFrom('demo', 'replay', 'plot', 'plotSvgLog', 'bench', 'missing')
              .map((heavy) => ({ heavy })),
          },
          {
            weight: 2,
            arbitrary: fc.constantFrom('path', 'spelled', 'hardLink', 'symbolicLink', 'fifo').map((same) => ({ same })),
          },
        ),
      ),
      async run(world, [d]) {
        const { cli } = world.P;
        const { out, streams } = output();
        let argv;
        let expected;
        // A file `main` must leave as it was (the log of `rmmjs plot`), with its text.
        let kept;
        if ('same' in d) {
          // An output that is the log, or not a file to write: refused before anything is read (exit 2).
          const file = freshName('same', 'svg');
          kept = { file, text: [COLUMNS.join(','), '1,00:00:00.000001,allocate,0x100,256,0x0', ''].join('\n') };
          writeFileSync(file, kept.text);
          const other = freshName('other', 'svg');
          if (d.same === 'hardLink') linkSync(file, other);
          if (d.same === 'symbolicLink') symlinkSync(file, other);
          if (d.same === 'fifo') execFileSync('mkfifo', [other]);
          const output = { path: file, spelled: `./${file}` }[d.same] ?? other;
          argv = ['plot', file, '-o', output];
          expected = 2;
        } else if ('wrong' in d) {
          argv = wrongCommandLines[d.wrong];
          expected = 2;
        } else if ('cheap' in d) {
          argv = {
            help: ['--help'],
            version: ['-v'],
            info: ['info'],
            infoJson: ['info', '--json'],
            commandHelp: ['replay', '-h'],
          }[d.cheap];
          expected = 0;
        } else {
          if (d.heavy !== 'missing' && !once(`main ${d.heavy}`)) return;
          // (A log named .svg: plotted to .plot.svg, never over itself.)
          const file = freshName('main', d.heavy === 'plotSvgLog' ? 'svg' : 'csv');
          const rows = ['1,00:00:00.000001,allocate,0x100,256,0x0', '1,00:00:00.000002,free,0x100,256,0x0'];
          kept = { file, text: [COLUMNS.join(','), ...rows, ''].join('\n') };
          writeFileSync(file, kept.text);
          argv = {
            demo: ['demo'],
            replay: ['replay', file, '--resources', 'cuda', '--json'],
            plot: ['plot', file, '-o', `${file}.svg`],
            plotSvgLog: ['plot', file],
            bench: ['bench', '--quick', '--resources', 'fixed-size'],
            missing: ['replay', 'no-such-log.csv'], // the command fails: exit 1, the reason on stderr
          }[d.heavy];
          expected = d.heavy === 'missing' ? 1 : 0;
        }
        const call = new Call(world, 'same' in d ? `main plot -o (the log: ${d.same})` : `main ${argv.join(' ')}`);
        const result = await onRoot(world, () => call.runAsync(() => cli.main(argv, streams)));
        if (kept !== undefined && readFileSync(kept.file, 'latin1') !== kept.text)
          throw new FuzzFailure(`rmmjs ${argv.join(' ')} wrote over its log`);
        if (!result.ok) return;
        // A heavy command on a device the world has filled fails as it says: out of memory.
        const outOfMemory = 'heavy' in d && result.value === 1 && /ERR_RMM_OUT_OF_MEMORY/.test(out.stderr);
        if (result.value !== expected && !outOfMemory)
          throw new FuzzFailure(`rmmjs ${argv.join(' ')}: exit ${result.value}, expected ${expected}\n${out.stderr}`);
        if (outOfMemory) return;
        if (expected === 2 && !out.stderr.includes('Usage:') && !out.stderr.includes('rmmjs '))
          throw new FuzzFailure(`rmmjs ${argv.join(' ')}: no usage on stderr`);
        if (expected === 0 && out.stdout === '') throw new FuzzFailure(`rmmjs ${argv.join(' ')} printed nothing`);
        if (d.heavy === 'plotSvgLog' && !existsSync(kept.file.replace(/\.svg$/, '.plot.svg')))
          throw new FuzzFailure(`rmmjs ${argv.join(' ')} did not write its .plot.svg`);
      },
    },
  ];
}
