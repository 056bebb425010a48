// Every exported function of the library refuses a wrong argument with rmmjs's error classes and
// codes, before it does anything (no worker started, no resource made, nothing allocated).
import { describe, expect, it } from 'vitest';
import { backend } from '@rmmjs/test-helpers';
import { getCurrentDeviceResource } from '@rmmjs/core';
import { StatisticsResourceAdaptor } from '@rmmjs/statistics';
import * as cli from '@rmmjs/cli';
import { HEADER } from './logs.js';

const TYPE = [TypeError, 'ERR_INVALID_ARG_TYPE'] as const;
const VALUE = [TypeError, 'ERR_INVALID_ARG_VALUE'] as const;
const RANGE = [RangeError, 'ERR_OUT_OF_RANGE'] as const;
type Expected = readonly [typeof TypeError | typeof RangeError, string];

const logText = [
  HEADER,
  '1,00:00:00.000001,allocate,0x100,4096,0x0',
  '2,00:00:00.000002,allocate,0x200,1000,0x5a00',
  '1,00:00:00.000003,free,0x100,4096,0x0',
  '',
].join('\n');
const log = () => cli.parseLog(logText, 'small.csv');
const allocator = { allocate: () => 256n, deallocate: () => {} };
const sink = { write: () => true };

/** A copy of the log with `change` made to it (the columns copied too). */
function changed(change: (log: cli.AllocationLog) => void): cli.AllocationLog {
  const copy = { ...log() };
  for (const key of ['action', 'size', 'time', 'thread', 'stream', 'slot', 'line'] as const) {
    (copy as Record<string, unknown>)[key] = copy[key].slice();
  }
  copy.live = copy.live.map((entry) => ({ ...entry }));
  change(copy);
  return copy;
}

function expectError(fn: () => unknown, [Class, code]: Expected, name: string) {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(Class);
  expect(Object.getPrototypeOf(thrown)).toBe(Class.prototype);
  expect((thrown as { code?: string }).code).toBe(code);
  expect((thrown as Error).message).toContain(name);
}

async function expectRejection(fn: () => Promise<unknown>, [Class, code]: Expected, name: string) {
  const thrown = await fn().then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(thrown).toBeInstanceOf(Class);
  expect((thrown as { code?: string }).code).toBe(code);
  expect((thrown as Error).message).toContain(name);
}

describe(`the library's argument checks (${backend()})`, () => {
  it.each<[string, () => unknown, Expected, string]>([
    ['formatBytes: a string', () => cli.formatBytes('1 KiB' as never), TYPE, '"bytes"'],
    ['formatBytes: NaN', () => cli.formatBytes(NaN), RANGE, '"bytes"'],
    ['formatBytes: -1', () => cli.formatBytes(-1), RANGE, '"bytes"'],
    ['formatBytes: Infinity', () => cli.formatBytes(Infinity), RANGE, '"bytes"'],
    ['parseLog: a number for the text', () => cli.parseLog(42 as never), TYPE, '"text"'],
    ['parseLog: a number for the source', () => cli.parseLog(logText, 7 as never), TYPE, '"source"'],
    ['new LogParser: no source', () => new cli.LogParser(undefined as never), TYPE, '"source"'],
    ['LogParser#line: a number', () => new cli.LogParser('x').line(1 as never), TYPE, '"text"'],
    ['LogParser#line: unterminated 1', () => new cli.LogParser('x').line(HEADER, 1 as never), TYPE, '"unterminated"'],
    ['summarizeLog: null', () => cli.summarizeLog(null as never), TYPE, '"log"'],
    ['summarizeLog: {}', () => cli.summarizeLog({} as never), TYPE, '"log.source"'],
    ['summarizeLog: an array', () => cli.summarizeLog([] as never), TYPE, '"log"'],
    [
      'summarizeLog: a column of the wrong type',
      () => cli.summarizeLog({ ...log(), size: [4096, 1000, 4096] } as never),
      TYPE,
      '"log.size"',
    ],
    [
      'summarizeLog: a column too short',
      () => cli.summarizeLog({ ...log(), slot: new Int32Array(2) }),
      VALUE,
      '"log.slot"',
    ],
    [
      'plotData: a thread out of range',
      () => cli.plotData(changed((l) => (l.thread[0] = 5))),
      VALUE,
      'row 0 has no thread 5',
    ],
    [
      'plotData: a stream out of range',
      () => cli.plotData(changed((l) => (l.stream[1] = -1))),
      VALUE,
      'row 1 has no stream -1',
    ],
    [
      'plotData: a free of what is not allocated',
      () => cli.plotData(changed((l) => (l.slot[2] = 1))),
      VALUE,
      'row 2 frees 4096 bytes of slot 1, allocated with 1000',
    ],
    [
      'plotData: an allocation of a live slot',
      () => cli.plotData(changed((l) => (l.slot[1] = 0))),
      VALUE,
      'row 1 allocates slot 0, live since row 0',
    ],
    ['plotData: a fractional size', () => cli.plotData(changed((l) => (l.size[0] = 1.5))), VALUE, 'row 0 has size 1.5'],
    ['plotData: an unknown action', () => cli.plotData(changed((l) => (l.action[0] = 7))), VALUE, 'row 0 has action 7'],
    ['plotData: a wrong peak', () => cli.plotData(changed((l) => (l.peakBytes = 1))), VALUE, '"log.peakBytes" is 1'],
    ['plotData: a wrong live list', () => cli.plotData(changed((l) => (l.live = []))), VALUE, '"log.live"'],
    ['plotSpec: data of the wrong shape', () => cli.plotSpec(log(), { inUse: 1 } as never), TYPE, '"data.inUse"'],
    ['renderHtml: a string spec', () => cli.renderHtml('{}' as never, 't'), TYPE, '"spec"'],
    ['renderHtml: no title', () => cli.renderHtml(cli.plotSpec(log()), undefined as never), TYPE, '"title"'],
    ['renderHtml: a bigint in the spec', () => cli.renderHtml({ n: 1n } as never, 't'), VALUE, 'JSON'],
    ['formatInfo: {}', () => cli.formatInfo({} as never), TYPE, '"info.versions"'],
    [
      'formatInfo: an unknown mode',
      () => cli.formatInfo({ ...cli.collectInfo(), mode: 'gpu' } as never),
      VALUE,
      '"info.mode"',
    ],
    ['formatReplay: 5', () => cli.formatReplay(5 as never), TYPE, '"report"'],
    [
      'formatReplay: a result without a resource',
      () => cli.formatReplay({ log: cli.summarizeLog(log()), size: null, results: [{}] } as never),
      TYPE,
      '"report.results[0].resource"',
    ],
    ['randomWorkload: options 5', () => cli.randomWorkload(5 as never), TYPE, '"options"'],
    ['randomWorkload: minSize 0', () => cli.randomWorkload({ minSize: 0 }), RANGE, '"options.minSize"'],
    [
      'randomWorkload: maxSize < minSize',
      () => cli.randomWorkload({ minSize: 8, maxSize: 4 }),
      RANGE,
      '"options.maxSize"',
    ],
    ['randomWorkload: maxLive 0', () => cli.randomWorkload({ maxLive: 0 }), RANGE, '"options.maxLive"'],
    ['randomWorkload: steps -1', () => cli.randomWorkload({ steps: -1 }), RANGE, '"options.steps"'],
    ['randomWorkload: steps NaN', () => cli.randomWorkload({ steps: NaN }), RANGE, '"options.steps"'],
    ['runRandomWorkload: no workload', () => cli.runRandomWorkload(allocator, undefined as never), TYPE, '"workload"'],
    [
      'runRandomWorkload: sizes not a Float64Array',
      () => cli.runRandomWorkload(allocator, { sizes: [1], frees: new Float64Array(1) } as never),
      TYPE,
      '"workload.sizes"',
    ],
    [
      'runRandomWorkload: a free of nothing live',
      () => cli.runRandomWorkload(allocator, { sizes: new Float64Array([0]), frees: new Float64Array([0]) }),
      VALUE,
      'step 0',
    ],
    ['benchCopies: no record', () => cli.benchCopies(null as never, true, false), TYPE, '"record"'],
    ['benchCopies: quick "yes"', () => cli.benchCopies(() => {}, 'yes' as never, false), TYPE, '"quick"'],
    ['benchCopies: gpu 1', () => cli.benchCopies(() => {}, true, 1 as never), TYPE, '"gpu"'],
  ])('%s', (_what, fn, expected, name) => expectError(fn, expected, name));

  const mr = () => getCurrentDeviceResource();
  it.each<[string, () => Promise<unknown>, Expected, string]>([
    ['main: argv not an array', () => cli.main('info' as never), TYPE, '"argv"'],
    ['main: argv of numbers', () => cli.main([1] as never), TYPE, '"argv[0]"'],
    ['main: output without stderr', () => cli.main(['info'], { stdout: sink } as never), TYPE, '"output.stderr"'],
    [
      'main: output.stdout.write not a function',
      () => cli.main(['info'], { stdout: {}, stderr: sink } as never),
      TYPE,
      '"output.stdout.write"',
    ],
    ['readLog: a number for the file', () => cli.readLog(3 as never), TYPE, '"file"'],
    ['readLog: onProgress 1', () => cli.readLog('x.csv', { onProgress: 1 as never }), TYPE, '"options.onProgress"'],
    ['readLog: options "x"', () => cli.readLog('x.csv', 'x' as never), TYPE, '"options"'],
    ['replayLog: no log', () => cli.replayLog(undefined as never), TYPE, '"log"'],
    [
      'replayLog: resources a string',
      () => cli.replayLog(log(), { resources: 'pool' as never }),
      TYPE,
      '"options.resources"',
    ],
    [
      'replayLog: an unknown resource',
      () => cli.replayLog(log(), { resources: ['pool', 'nope' as never] }),
      VALUE,
      '"options.resources[1]"',
    ],
    ['replayLog: size -1', () => cli.replayLog(log(), { size: -1 }), RANGE, '"options.size"'],
    ['replayLog: size "4GiB"', () => cli.replayLog(log(), { size: '4GiB' as never }), TYPE, '"options.size"'],
    ['replayLog: onProgress 1', () => cli.replayLog(log(), { onProgress: 1 as never }), TYPE, '"options.onProgress"'],
    ['replayOn: not a resource', () => cli.replayOn(log(), {} as never), TYPE, '"mr"'],
    ['replayOn: onProgress null', () => cli.replayOn(log(), mr(), null as never), TYPE, '"onProgress"'],
    ['replayLog: workers 0', () => cli.replayLog(log(), { workers: 0 }), RANGE, '"options.workers"'],
    ['replayLog: workers 257', () => cli.replayLog(log(), { workers: 257 }), RANGE, '"options.workers"'],
    ['replayLog: workers "2"', () => cli.replayLog(log(), { workers: '2' as never }), TYPE, '"options.workers"'],
    ['replayOn: options "x"', () => cli.replayOn(log(), mr(), undefined, 'x' as never), TYPE, '"options"'],
    ['replayOn: workers 1.5', () => cli.replayOn(log(), mr(), undefined, { workers: 1.5 }), RANGE, '"options.workers"'],
    [
      'replayOn: a log freeing twice',
      () =>
        cli.replayOn(
          changed((l) => (l.action[2] = 1) && (l.slot[1] = 0)),
          mr(),
        ),
      VALUE,
      'row 1',
    ],
    ['renderSvg: null', () => cli.renderSvg(null as never), TYPE, '"spec"'],
    ['renderSvg: not Vega-Lite', () => cli.renderSvg({ mark: 'nope' } as never), VALUE, '"spec"'],
    ['runDemo: print 1', () => cli.runDemo(1 as never), TYPE, '"print"'],
    ['runBench: options 1', () => cli.runBench(1 as never), TYPE, '"options"'],
    [
      'runBench: an unknown resource',
      () => cli.runBench({ resources: ['nope' as never] }),
      VALUE,
      '"options.resources[0]"',
    ],
    ['runBench: quick 1', () => cli.runBench({ quick: 1 as never }), TYPE, '"options.quick"'],
    ['runBench: onRow 1', () => cli.runBench({ onRow: 1 as never }), TYPE, '"options.onRow"'],
    ['threadOpsPerSecond: not a resource', () => cli.threadOpsPerSecond({} as never, 1), TYPE, '"mr"'],
    ['threadOpsPerSecond: 0 workers', () => cli.threadOpsPerSecond(mr(), 0), RANGE, '"workers"'],
    ['threadOpsPerSecond: 1000 workers', () => cli.threadOpsPerSecond(mr(), 1000), RANGE, '"workers"'],
    [
      'threadOpsPerSecond: nbytes as code',
      () => cli.threadOpsPerSecond(mr(), 1, { nbytes: '1); process.exit(' as never }),
      TYPE,
      '"options.nbytes"',
    ],
    [
      'threadOpsPerSecond: Infinity seconds',
      () => cli.threadOpsPerSecond(mr(), 1, { seconds: Infinity }),
      RANGE,
      '"options.seconds"',
    ],
  ])('%s', (_what, fn, expected, name) => expectRejection(fn, expected, name));

  it('refuses before it allocates: no memory is taken from the resource given', async () => {
    using counted = new StatisticsResourceAdaptor(getCurrentDeviceResource());
    await expectRejection(() => cli.replayOn({ ...log(), live: [] }, counted), VALUE, '"log.live"');
    await expectRejection(() => cli.threadOpsPerSecond(counted, 1, { seconds: 0 }), RANGE, '"options.seconds"');
    expect(counted.allocationCounts.totalCount).toBe(0);
    expect(getCurrentDeviceResource()).not.toBe(counted);
  });

  it('a log from the parser, and a copy of one, pass the checks', () => {
    const parsed = log();
    expect(cli.summarizeLog(changed(() => {}))).toEqual(cli.summarizeLog(parsed));
    expect(cli.plotData(parsed).peakBytes).toBe(5096);
  });
});
