// @rmmjs/statistics: the statistics stack over the current resource, Statistics, the profiler and
// its records (with a model of the records, checked after every call, failed ones included).
import fc from 'fast-check';
import { HostileError } from '../hostile.js';
import { Call, FuzzFailure, options } from '../params.js';
import * as V from '../values.js';

const pkg = '@rmmjs/statistics';
const counterNames = ['currentBytes', 'currentCount', 'peakBytes', 'peakCount', 'totalBytes', 'totalCount'];
const amount = V.integerAmong(0, 1, 4096, 2 ** 53 - 1, -5, 2.5, 2 ** 53);

function amountArg(call, value) {
  if (typeof value !== 'number') call.invalid('type');
  else if (!Number.isInteger(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER) call.invalid('range');
  return value;
}

// What the functions profiled or run inside a scope do.
const body = fc.record({
  side: V.sideAction,
  then: fc.constantFrom('return', 'return', 'throw', 'async', 'asyncThrow'),
});

function bodyFunction(world, b) {
  return () => {
    world.sideAction(b.side);
    if (b.then === 'throw') throw new HostileError('profiled function');
    if (b.then === 'async') return Promise.resolve(7);
    if (b.then === 'asyncThrow') return Promise.reject(new HostileError('profiled async function'));
    return 7;
  };
}

// The stack of the current statistics adaptor is no longer known exactly once scopes run.
function scopesTouch(world) {
  const mr = world.P.core.getCurrentDeviceResource();
  const entry = world.resourceEntry(mr);
  if (entry !== undefined) world.counting.unknownStack(entry.address);
}

// instanceof runs a Proxy's getPrototypeOf trap: a hostile one throws (the call may too).
function isRecords(value, statistics) {
  try {
    return value instanceof statistics.ProfilerRecords;
  } catch {
    return false;
  }
}

function records(world, i) {
  const list = world.profilerRecords;
  return list[i % list.length];
}

/** The model of a ProfilerRecords: name -> { numCalls, memoryTotal, memoryPeak }. */
function checkRecords(world, entry, what) {
  const actual = entry.records.toJSON();
  const expected = Object.fromEntries(entry.model);
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e && !entry.unknown) throw new FuzzFailure(`${what}: ProfilerRecords holds ${a}, the model ${e}`);
}

export default function statisticsModels() {
  return [
    {
      name: 'statistics stack functions',
      covers: ['enableStatistics', 'getStatistics', 'pushStatistics', 'popStatistics'].map((f) => `${pkg}:${f}`),
      args: fc.constantFrom('enableStatistics', 'getStatistics', 'pushStatistics', 'popStatistics'),
      run(world, f) {
        const { statistics, core } = world.P;
        const call = new Call(world, f);
        const before = core.getCurrentDeviceResource();
        const entry = world.resourceEntry(before);
        const isStatistics = before instanceof statistics.StatisticsResourceAdaptor;
        if (f === 'popStatistics' && isStatistics) {
          if (world.counting.stackKnown(entry.address) && world.counting.stackDepth(entry.address) === 1)
            call.invalid('range');
          else call.allow('range');
        }
        const result = call.run(() => statistics[f]());
        if (!result.ok) return;
        if (f === 'enableStatistics') {
          const now = core.getCurrentDeviceResource();
          if (!(now instanceof statistics.StatisticsResourceAdaptor))
            throw new FuzzFailure('enableStatistics() left no adaptor on top');
          if (now !== before) world.addResource(now, { upstream: before });
          return;
        }
        if (!isStatistics) {
          if (result.value !== null) throw new FuzzFailure(`${f}() is not null without statistics`);
          return;
        }
        const expected =
          f === 'getStatistics'
            ? world.counting.topPair(entry.address)
            : f === 'pushStatistics'
              ? world.counting.push(entry.address)
              : world.counting.pop(entry.address);
        if (world.counting.isExact(entry.address) && expected !== undefined) {
          for (const key of counterNames) {
            if (result.value[key] !== expected[key])
              throw new FuzzFailure(`${f}().${key} is ${result.value[key]}, the model ${expected[key]}`);
          }
        }
      },
    },
    {
      name: 'statistics scopes',
      covers: [`${pkg}:statistics`, `${pkg}:StatisticsScope.new`, `${pkg}:StatisticsScope#[Symbol.dispose]`],
      args: fc.tuple(fc.constantFrom('scope', 'new', 'fn', 'fn', 'leave', 'hostile'), body, V.hostile, fc.nat()),
      async run(world, [how, b, h, i]) {
        const { statistics, core } = world.P;
        const call = new Call(world, `statistics (${how})`);
        scopesTouch(world);
        call.allow('logic', 'range', 'disposed'); // a scope left after the stack changed
        if (how === 'leave') {
          const scope = world.scopes.splice(i % Math.max(1, world.scopes.length), 1)[0];
          if (scope !== undefined) call.run(() => scope[Symbol.dispose]());
          return;
        }
        if (how === 'scope' || how === 'new') {
          const result = call.run(() => (how === 'scope' ? statistics.statistics() : new statistics.StatisticsScope()));
          if (result.ok) world.scopes.push(result.value);
        } else if (how === 'hostile') {
          const fn = call.value(h);
          if (fn !== undefined && typeof fn !== 'function') call.invalid('type');
          if (typeof fn === 'function') call.allow('hostile', 'type', 'range', 'value', 'oom');
          const result = call.run(() => statistics.statistics(fn));
          if (result.ok && fn === undefined) world.scopes.push(result.value);
        } else {
          call.allow('hostile', 'oom', 'type', 'value');
          await call.runAsync(() => statistics.statistics(bodyFunction(world, b)));
        }
        world.adoptResource(core.getCurrentDeviceResource());
      },
    },
    {
      name: 'new Statistics',
      covers: [`${pkg}:Statistics.new`],
      args: fc.tuple(fc.boolean(), fc.array(amount, { minLength: 6, maxLength: 6 }), V.hostile),
      run(world, [asObject, values, h]) {
        const call = new Call(world, 'new Statistics');
        const numbers = values.map((d) => call.value(d));
        let init = asObject ? Object.fromEntries(counterNames.map((k, j) => [k, numbers[j]])) : undefined;
        if (asObject && values[0].lit === 0 && 'h' in h) {
          init = call.value(h); // a hostile init object
          if (typeof init !== 'object' || init === null) call.allow('type', 'range');
          else call.allow('type', 'range');
        } else numbers.forEach((n) => amountArg(call, n));
        const result = call.run(() =>
          asObject ? new world.P.statistics.Statistics(init) : new world.P.statistics.Statistics(...numbers),
        );
        if (result.ok && init === undefined && !call.flags.unstable) {
          counterNames.forEach((k, j) => {
            if (result.value[k] !== numbers[j]) throw new FuzzFailure(`Statistics.${k}`);
          });
        }
      },
    },
    {
      name: 'MemoryRecord',
      covers: [`${pkg}:MemoryRecord.new`, `${pkg}:MemoryRecord#add`],
      args: fc.tuple(fc.boolean(), fc.array(amount, { minLength: 3, maxLength: 3 }), amount, amount),
      run(world, [asObject, values, total, peak]) {
        const call = new Call(world, 'new MemoryRecord');
        const [numCalls, memoryTotal, memoryPeak] = values.map((d) => call.value(d));
        // Omitted values are 0; an object as the first argument is the object form.
        const firstIsObject = !asObject && typeof numCalls === 'object' && numCalls !== null;
        if (firstIsObject) call.allow('type', 'range', 'revoked');
        else [numCalls, memoryTotal, memoryPeak].forEach((n) => n === undefined || amountArg(call, n));
        const { MemoryRecord } = world.P.statistics;
        const result = call.run(() =>
          asObject
            ? new MemoryRecord({ numCalls, memoryTotal, memoryPeak })
            : new MemoryRecord(numCalls, memoryTotal, memoryPeak),
        );
        if (!result.ok) return;
        const record = result.value;
        const before = { ...record };
        const add = new Call(world, 'MemoryRecord#add');
        const t = amountArg(add, add.value(total));
        const p = amountArg(add, add.value(peak));
        if (typeof t === 'number' && !Number.isSafeInteger(record.memoryTotal + t)) add.invalid('range'); // the total stays safe
        if (add.run(() => record.add(t, p)).ok) return;
        // A failed add changes nothing.
        for (const key of ['numCalls', 'memoryTotal', 'memoryPeak']) {
          if (record[key] !== before[key])
            throw new FuzzFailure(`a failed MemoryRecord#add changed ${key} from ${before[key]} to ${record[key]}`);
        }
      },
    },
    {
      name: 'ProfilerRecords',
      covers: ['.new', '#add', '#records', '#report', '#toJSON', '#toString', '.MemoryRecord']
        .map((m) => `${pkg}:ProfilerRecords${m}`)
        .concat(`${pkg}:defaultProfilerRecords`),
      args: fc.tuple(
        fc.constantFrom('new', 'add', 'add', 'report', 'read'),
        fc.nat(),
        V.mixedString,
        fc.oneof(fc.record({ totalBytes: amount, peakBytes: amount }), V.hostile),
        V.options({
          orderedBy: fc
            .constantFrom('numCalls', 'memoryPeak', 'memoryTotal', 'memory_total', 'bogus')
            .map((lit) => ({ lit })),
        }),
      ),
      run(world, [what, i, n, s, o]) {
        const { ProfilerRecords, MemoryRecord } = world.P.statistics;
        if (ProfilerRecords.MemoryRecord !== MemoryRecord) throw new FuzzFailure('ProfilerRecords.MemoryRecord');
        if (what === 'new') {
          world.profilerRecords.push({ records: new ProfilerRecords(), model: new Map() });
          return;
        }
        const entry = records(world, i);
        const call = new Call(world, `ProfilerRecords#${what}`);
        if (what === 'add') {
          const name = call.value(n);
          if (typeof name !== 'string') call.invalid('type');
          let stats;
          let fields;
          if ('totalBytes' in s) {
            fields = [call.value(s.totalBytes), call.value(s.peakBytes)];
            fields.forEach((v) => amountArg(call, v));
            const before = typeof name === 'string' ? (entry.model.get(name)?.memoryTotal ?? 0) : 0;
            if (typeof fields[0] === 'number' && !Number.isSafeInteger(before + fields[0])) call.allow('range');
            if (entry.unknown) call.allow('range');
            stats = { totalBytes: fields[0], peakBytes: fields[1] };
          } else {
            stats = call.value(s);
            if (typeof stats !== 'object' || stats === null) call.invalid('type');
            else call.allow('type', 'range');
          }
          const result = call.run(() => entry.records.add(name, stats));
          if (result.ok && fields !== undefined) {
            const record = entry.model.get(name) ?? { numCalls: 0, memoryTotal: 0, memoryPeak: 0 };
            entry.model.set(name, {
              numCalls: record.numCalls + 1,
              memoryTotal: record.memoryTotal + fields[0],
              memoryPeak: Math.max(record.memoryPeak, fields[1]),
            });
          } else if (result.ok) entry.unknown = true;
        } else if (what === 'report') {
          const value = call.value(o);
          if (
            options(call, value) &&
            value !== undefined &&
            !call.flags.throws &&
            !call.flags.revoked &&
            'orderedBy' in value
          ) {
            if (typeof value.orderedBy !== 'string') call.invalid('type');
            else if (
              !['numCalls', 'memoryPeak', 'memoryTotal', 'num_calls', 'memory_peak', 'memory_total'].includes(
                value.orderedBy,
              )
            )
              call.invalid('value');
          }
          const result = call.run(() => entry.records.report(value));
          if (result.ok && typeof result.value !== 'string') throw new FuzzFailure('report() is not a string');
        } else {
          const result = call.run(() => [entry.records.records, String(entry.records)]);
          if (result.ok && !(result.value[0] instanceof Map)) throw new FuzzFailure('records is not a Map');
        }
        checkRecords(world, entry, `ProfilerRecords#${what}`);
      },
    },
    {
      name: 'profiler',
      covers: [
        `${pkg}:profiler`,
        `${pkg}:profileScope`,
        `${pkg}:profile`,
        `${pkg}:ProfileScope.new`,
        `${pkg}:ProfileScope#[Symbol.dispose]`,
      ],
      args: fc.tuple(
        fc.constantFrom('profiler', 'decorator', 'legacyDecorator', 'profileScope', 'profile', 'newScope', 'leave'),
        V.mixedString,
        fc.oneof(fc.constant('records'), V.hostile),
        body,
        fc.nat(),
        fc.boolean(),
      ),
      async run(world, [how, n, r, b, i, omitName]) {
        const { statistics } = world.P;
        const call = new Call(world, `profiler (${how})`);
        scopesTouch(world);
        call.allow('range', 'logic'); // the counters popped by someone else
        const name = omitName && how.startsWith('profiler') ? undefined : call.value(n);
        const recordsEntry = r === 'records' ? records(world, i) : undefined;
        const recordsValue = recordsEntry?.records ?? call.value(r);
        if (recordsEntry !== undefined) recordsEntry.unknown = true;
        const needsName = ['profileScope', 'profile', 'newScope'].includes(how);
        if (name !== undefined && typeof name !== 'string') call.invalid('type');
        if (needsName && name === '') call.invalid('value');
        if (needsName && name === undefined) call.invalid('type');
        if (recordsValue !== undefined && !isRecords(recordsValue, statistics)) call.invalid('type');
        const fn = bodyFunction(world, b);
        call.allow('hostile', 'oom', 'disposed');
        switch (how) {
          case 'profiler': {
            const made = call.run(() => statistics.profiler({ records: recordsValue, name }));
            if (made.ok) await new Call(world, 'a profiled function').runAsync(() => made.value(fn)()).catch(() => {});
            return;
          }
          case 'decorator': {
            if (i % 2 === 0) call.invalid('value'); // a decorator of a field
            const made = call.run(() =>
              statistics.profiler({ records: recordsValue, name })(fn, { kind: i % 2 ? 'method' : 'field', name: 'm' }),
            );
            return made;
          }
          case 'legacyDecorator': {
            call.allow('type');
            return call.run(() =>
              statistics.profiler({ records: recordsValue, name })({}, 'm', { value: i % 2 ? fn : 5 }),
            );
          }
          case 'profileScope': {
            const result = call.run(() => statistics.profileScope(name, { records: recordsValue }));
            if (result.ok) world.scopes.push(result.value);
            return result;
          }
          case 'newScope': {
            const result = call.run(() => new statistics.ProfileScope(name, recordsValue));
            if (result.ok) world.scopes.push(result.value);
            return result;
          }
          case 'profile':
            return call.runAsync(() => statistics.profile(name, fn, { records: recordsValue }));
          case 'leave': {
            const scope = world.scopes.splice(i % Math.max(1, world.scopes.length), 1)[0];
            if (scope !== undefined) {
              const leave = new Call(world, 'leave a scope');
              leave.allow('logic', 'range', 'disposed');
              leave.run(() => scope[Symbol.dispose]());
            }
            return undefined;
          }
        }
        return undefined;
      },
    },
  ];
}
