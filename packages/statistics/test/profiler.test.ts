import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { DeviceBuffer, getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import {
  MemoryRecord,
  ProfilerRecords,
  Statistics,
  defaultProfilerRecords,
  enableStatistics,
  getStatistics,
  ProfileScope,
  profile,
  profileScope,
  profiler,
} from '@rmmjs/statistics';
import { runInProcess, thrown } from '@rmmjs/test-helpers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const buffer = (size: number) => new DeviceBuffer({ size });
const here = fileURLToPath(import.meta.url);
const packageDir = fileURLToPath(new URL('..', import.meta.url));

let base: ReturnType<typeof getCurrentDeviceResource>;
beforeEach(() => {
  base = getCurrentDeviceResource();
  enableStatistics();
});
afterEach(() => {
  setCurrentDeviceResource(base);
});

describe('profiler (RMM test_profiler)', () => {
  it('records calls, totals and peaks of functions and blocks', async () => {
    const records = new ProfilerRecords();
    expect(records.records.size).toBe(0);
    expect(records.report()).toContain('No data');

    const f1 = profiler({ records })(function f1() {
      const b1 = buffer(10);
      const b2 = buffer(10);
      b1.free();
      return b2;
    });
    let b1 = f1();
    let b2 = f1();

    const f2 = profiler({ records })(function f2() {
      const b = buffer(10);
      const g2 = profiler({ records, name: 'g2' })((b: DeviceBuffer) => {
        const b2 = buffer(10);
        b.free();
        return b2;
      });
      return g2(b);
    });
    const kept = [f2(), f2()];
    b1.free();
    b2.free();
    kept.push(f2());

    const f3 = profiler({ records })(function f3() {
      return Array.from({ length: 100 }, () => buffer(100));
    });
    const many = f3();

    const names = [...records.records.keys()];
    expect(names).toHaveLength(4);
    const f1Name = names.find((name) => name.endsWith('(f1)'))!;
    expect(f1Name.startsWith(`${here}:`)).toBe(true);
    expect(records.records.get(f1Name)).toEqual(new MemoryRecord(2, 40, 20));
    expect(records.records.get(names.find((name) => name.endsWith('(f2)'))!)).toEqual(new MemoryRecord(3, 60, 20));
    expect(records.records.get('g2')).toEqual(new MemoryRecord(3, 30, 10));
    expect(records.records.get(names.find((name) => name.endsWith('(f3)'))!)).toEqual(
      new MemoryRecord(1, 10000, 10000),
    );

    const f4 = profiler()(function f4() {
      return Array.from({ length: 10 }, () => buffer(10));
    });
    const tens = f4();
    {
      using _block = profileScope('b1 and b2');
      b1 = buffer(100);
      b2 = buffer(100);
      {
        using _inner = profileScope('del b1 and b2');
        b1.free();
        b2.free();
      }
    }
    const defaults = defaultProfilerRecords.records;
    expect(defaults.get([...defaults.keys()].find((name) => name.endsWith('(f4)'))!)).toEqual(
      new MemoryRecord(1, 100, 100),
    );
    expect(defaults.get('b1 and b2')).toEqual(new MemoryRecord(1, 200, 200));
    expect(defaults.get('del b1 and b2')).toEqual(new MemoryRecord(1, 0, 0));
    for (const b of [...kept, ...many, ...tens]) b.free();
  });

  it('profile(name, fn) and async functions across awaits', async () => {
    const records = new ProfilerRecords();
    expect(profile('sync', () => buffer(64).free() ?? 'value', { records })).toBe('value');
    const load = profiler({ records, name: 'load' })(async (size: number) => {
      const first = buffer(size);
      await new Promise((resolve) => setTimeout(resolve, 1));
      const second = buffer(size);
      first.free();
      second.free();
      return size;
    });
    await expect(load(1000)).resolves.toBe(1000);
    await expect(profile('async', async () => buffer(5).free(), { records })).resolves.toBeUndefined();
    expect(records.toJSON()).toEqual({
      sync: { numCalls: 1, memoryTotal: 64, memoryPeak: 64 },
      load: { numCalls: 1, memoryTotal: 2000, memoryPeak: 2000 },
      async: { numCalls: 1, memoryTotal: 5, memoryPeak: 5 },
    });
    // the counters pushed for each call were popped
    expect(getStatistics()!.currentCount).toBe(0);
  });

  it('a throwing function is recorded and its error passes through', async () => {
    const records = new ProfilerRecords();
    const boom = new Error('boom');
    const failing = profiler({ records, name: 'failing' })(() => {
      buffer(8).free();
      throw boom;
    });
    expect(thrown(failing)).toBe(boom);
    await expect(profile('rejecting', () => Promise.reject(boom), { records })).rejects.toBe(boom);
    expect(records.toJSON()).toEqual({
      failing: { numCalls: 1, memoryTotal: 8, memoryPeak: 8 },
      rejecting: { numCalls: 1, memoryTotal: 0, memoryPeak: 0 },
    });
  });

  it('records nothing while statistics are disabled', () => {
    setCurrentDeviceResource(base);
    const records = new ProfilerRecords();
    expect(profiler({ records })(() => buffer(10).free() ?? 1)()).toBe(1);
    expect(profile('off', () => 2, { records })).toBe(2);
    expect(records.records.size).toBe(0);
  });

  it('keeps this, arguments, name and length of the function', () => {
    const records = new ProfilerRecords();
    const object = {
      scale: 3,
      times: profiler({ records })(function times(this: { scale: number }, a: number, b: number) {
        return this.scale * a * b;
      }),
    };
    expect(object.times(2, 5)).toBe(30);
    expect(object.times.name).toBe('times');
    expect(object.times.length).toBe(2);
  });
});

describe('profiler as a method decorator', () => {
  // TypeScript compiles decorators (Node cannot parse them): children/decorated-loader.ts is compiled
  // with TypeScript's standard decorators and with experimentalDecorators, then run in a child process.
  const source = readFileSync(new URL('./children/decorated-loader.ts', import.meta.url), 'utf8');

  function runCompiled(experimentalDecorators: boolean): { lines: string[]; file: string } {
    const dir = mkdtempSync(join(packageDir, '.decorators-'));
    try {
      const file = join(dir, 'loader.mjs');
      const { outputText } = ts.transpileModule(source, {
        compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, experimentalDecorators },
      });
      writeFileSync(file, outputText);
      const run = runInProcess(pathToFileURL(file));
      expect(run.stderr).toBe('');
      return { lines: run.stdout.split('\n'), file };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it.each([
    ['standard decorators', false],
    ['experimentalDecorators', true],
  ])('%s: each method is recorded as file:line(Class.method)', (_kind, experimental) => {
    const { lines, file } = runCompiled(experimental);
    expect(lines[0]).toBe('10 20');
    const json = JSON.parse(lines[1]);
    const names = Object.keys(json);
    expect(names).toHaveLength(2);
    const pattern = (method: string) => new RegExp(`^${file.replace(/[.]/g, '\\.')}:\\d+\\(${method}\\)$`);
    expect(names[0]).toMatch(pattern('Loader\\.load'));
    expect(names[1]).toMatch(pattern('Loader\\.make'));
    expect(Object.values(json)).toEqual([
      { numCalls: 2, memoryTotal: 30, memoryPeak: 20 },
      { numCalls: 1, memoryTotal: 5, memoryPeak: 5 },
    ]);
  });

  it('a decorator context that is not a method -> ERR_INVALID_ARG_VALUE', () => {
    const context = { kind: 'getter', name: 'x' } as unknown as ClassMethodDecoratorContext;
    expect(thrown(() => profiler()(() => 1, context)).code).toBe('ERR_INVALID_ARG_VALUE');
  });
});

describe('ProfilerRecords', () => {
  const stats = (total: number, peak: number) => new Statistics(0, 0, peak, 0, total, 0);

  it("report(): RMM's layout, largest peak first, equal ones in the order added", () => {
    const records = new ProfilerRecords();
    records.add('small', stats(10, 10));
    records.add('big', stats(1234567, 1000000));
    records.add('big', stats(1, 1));
    records.add('tie', stats(10, 10));
    expect(records.report()).toBe(
      [
        'Memory Profiling',
        '================',
        '',
        'Legends:',
        '  ncalls       - number of times the function or code block was called',
        '  memory_peak  - peak memory allocated in function or code block (in bytes)',
        '  memory_total - total memory allocated in function or code block (in bytes)',
        '',
        'Ordered by: memoryPeak',
        '',
        'ncalls     memory_peak    memory_total  filename:lineno(function)',
        '     2       1,000,000       1,234,568  big',
        '     1              10              10  small',
        '     1              10              10  tie',
      ].join('\n'),
    );
    expect(records.report({ orderedBy: 'numCalls' }).split('\n').slice(8, 9)).toEqual(['Ordered by: numCalls']);
    expect(
      records
        .report({ orderedBy: 'numCalls' })
        .split('\n')
        .slice(-3)
        .map((line) => line.split(' ').at(-1)),
    ).toEqual(['big', 'small', 'tie']);
    expect(records.report({ orderedBy: 'memory_total' }).split('\n').at(-1)!.endsWith('tie')).toBe(true);
    expect(String(records)).toBe(records.report());
  });

  it("report() of nothing: RMM's 'No data' text", () => {
    expect(new ProfilerRecords().report()).toBe(
      "Memory Profiling\n================\n\nNo data, maybe profiling wasn't enabled?",
    );
  });

  it('records is a copy keyed by name; toJSON for tooling', () => {
    const records = new ProfilerRecords();
    records.add('a', stats(5, 3));
    const copy = records.records;
    copy.get('a')!.numCalls = 99;
    copy.delete('a');
    expect(records.records.get('a')).toEqual(new MemoryRecord(1, 5, 3));
    expect(JSON.parse(JSON.stringify(records))).toEqual({ a: { numCalls: 1, memoryTotal: 5, memoryPeak: 3 } });
    expect(ProfilerRecords.MemoryRecord).toBe(MemoryRecord);
    expect(new MemoryRecord({ numCalls: 2, memoryPeak: 7 })).toEqual(new MemoryRecord(2, 0, 7));
  });

  it('bad arguments', () => {
    const records = new ProfilerRecords();
    expect(thrown(() => records.report({ orderedBy: 'size' as never })).code).toBe('ERR_INVALID_ARG_VALUE');
    expect(thrown(() => records.report({ orderedBy: 1 as never })).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => records.add(1 as never, stats(1, 1))).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => records.add('x', null as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => profiler({ records: {} as never })).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => profiler({ name: 3 as never })).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => profiler()(42 as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => profileScope('')).code).toBe('ERR_INVALID_ARG_VALUE');
    expect(thrown(() => profileScope(undefined as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => profile('x', 'not a function' as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    // Options are named options.X; positional arguments and properties of other objects by their path.
    expect(thrown(() => records.report({ orderedBy: 1 as never })).message).toBe(
      'The "options.orderedBy" property must be of type string. Received type number (1)',
    );
    expect(thrown(() => records.report({ orderedBy: 'size' as never })).message).toBe(
      `The property "options.orderedBy" must be 'numCalls', 'memoryPeak' or 'memoryTotal'. Received 'size'`,
    );
    expect(thrown(() => profiler({ records: {} as never })).message).toBe(
      'The "options.records" property must be an instance of ProfilerRecords. Received an instance of Object',
    );
    expect(thrown(() => profileScope('x', { records: 1 as never })).message).toBe(
      'The "options.records" property must be an instance of ProfilerRecords. Received type number (1)',
    );
    expect(thrown(() => profiler({ name: 3 as never })).message).toBe(
      'The "options.name" property must be of type string. Received type number (3)',
    );
    expect(thrown(() => profileScope(3 as never)).message).toBe(
      'The "name" argument must be of type string. Received type number (3)',
    );
    expect(thrown(() => records.add('x', { totalBytes: 1, peakBytes: '1' } as never)).message).toBe(
      `The "stats.peakBytes" property must be of type number. Received type string ('1')`,
    );
    expect(thrown(() => new MemoryRecord({ memoryTotal: 0.5 })).message).toBe(
      'The value of "init.memoryTotal" is out of range. It must be an integer >= -9007199254740991 and <= 9007199254740991. Received 0.5',
    );
    expect(thrown(() => new MemoryRecord(1, 2, 'x' as never)).message).toBe(
      `The "memoryPeak" argument must be of type number. Received type string ('x')`,
    );
    expect(getStatistics()!.currentCount).toBe(0);
    expect(records.records.size).toBe(0);
  });

  // Found by the fuzzer (tooling/fuzz): the exported class took anything, and its dispose then
  // threw a bare TypeError.
  it('new ProfileScope checks its name and records as profileScope() does', () => {
    expect(thrown(() => new ProfileScope(5 as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => new ProfileScope('')).code).toBe('ERR_INVALID_ARG_VALUE');
    expect(thrown(() => new ProfileScope('x', 5 as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    const records = new ProfilerRecords();
    const scope = new ProfileScope('block', records);
    new DeviceBuffer({ size: 100 }).free();
    scope[Symbol.dispose]();
    expect(records.toJSON()).toEqual({ block: { numCalls: 1, memoryTotal: 100, memoryPeak: 100 } });
  });

  // Found by the fuzzer (tooling/fuzz): a refused add counted a call, or left an empty record.
  it('a refused add changes nothing', () => {
    const record = new MemoryRecord(2, 10, 5);
    expect(thrown(() => record.add(1.5, 1)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => record.add(1, 'x' as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(record).toEqual(new MemoryRecord(2, 10, 5));
    const records = new ProfilerRecords();
    records.add('a', stats(5, 3));
    expect(thrown(() => records.add('a', { totalBytes: NaN, peakBytes: 1 })).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => records.add('b', { totalBytes: 1, peakBytes: 2 ** 53 })).code).toBe('ERR_OUT_OF_RANGE');
    expect(records.toJSON()).toEqual({ a: { numCalls: 1, memoryTotal: 5, memoryPeak: 3 } });
    // A total past 2^53 - 1 is refused too: the record stays one that `records` can copy.
    records.add('big', stats(Number.MAX_SAFE_INTEGER, 1));
    expect(thrown(() => records.add('big', stats(1, 1))).code).toBe('ERR_OUT_OF_RANGE');
    expect(records.records.get('big')).toEqual(new MemoryRecord(1, Number.MAX_SAFE_INTEGER, 1));
  });
});
