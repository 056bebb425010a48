// @rmmjs/logging's functions: the debug logger's levels and enableLogging for every device.
import { statSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import fc from 'fast-check';
import { Call, FuzzFailure, integer, string } from '../params.js';
import * as V from '../values.js';

const pkg = '@rmmjs/logging';
const levels = ['setLoggingLevel', 'setFlushLevel', 'shouldLog'];

function level(call, value) {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 6) call.invalid('type');
  return value;
}

function perDevice(world) {
  return Array.from({ length: world.devices }, (_, device) => world.P.core.getPerDeviceResource(device));
}

const isFifo = (path) => {
  try {
    return statSync(path).isFIFO();
  } catch {
    return false;
  }
};

// Whether enableLogging('pipe.fifo') must be refused: a device that does not log yet, whose file
// (pipe.dev<N>.fifo, made by the fuzz child) is a FIFO.
function refusesPipes(world) {
  const { logging } = world.P;
  return perDevice(world).some(
    (mr, device) => !(mr instanceof logging.LoggingResourceAdaptor) && isFifo(`pipe.dev${device}.fifo`),
  );
}

export default function loggingModels() {
  return [
    {
      name: 'logger levels',
      covers: [...levels, 'getLoggingLevel', 'getFlushLevel', 'flushLogger', 'LevelEnum', 'LoggingLevel'].map(
        (f) => `${pkg}:${f}`,
      ),
      args: fc.tuple(fc.constantFrom(...levels), V.integerAmong(0, 1, 2, 3, 4, 5, 6, 7, -1, 2.5)),
      run(world, [f, l]) {
        const { logging } = world.P;
        const call = new Call(world, `logging.${f}`);
        const value = level(call, call.value(l));
        const result = call.run(() => logging[f](value));
        if (!result.ok) return;
        if (f === 'setLoggingLevel' && logging.getLoggingLevel() !== value) throw new FuzzFailure('getLoggingLevel()');
        if (f === 'setFlushLevel' && logging.getFlushLevel() !== value) throw new FuzzFailure('getFlushLevel()');
        if (f === 'shouldLog' && result.value !== value >= logging.getLoggingLevel())
          throw new FuzzFailure('shouldLog()');
        logging.flushLogger();
        if (logging.LevelEnum.off !== 6 || logging.LoggingLevel !== logging.LevelEnum)
          throw new FuzzFailure('LevelEnum');
      },
    },
    {
      name: 'enableLogging',
      covers: [`${pkg}:enableLogging`, `${pkg}:getLogFilenames`],
      args: fc.tuple(fc.oneof(fc.constant({ lit: undefined }), V.fileName)),
      run(world, [n]) {
        const { logging } = world.P;
        const call = new Call(world, 'enableLogging');
        const name = call.value(n);
        if (name === undefined || name === '' || (typeof name === 'string' && name.includes('\0')))
          call.invalid('value');
        else if (name === 'pipe.fifo' && refusesPipes(world))
          call.invalid('logic'); // pipe.dev<N>.fifo: a FIFO, refused without blocking
        else if (typeof name === 'string') call.allow('value', 'logic');
        else string(call, name);
        const before = perDevice(world);
        const result = call.run(() => logging.enableLogging(name));
        const after = perDevice(world);
        after.forEach((mr, device) => {
          if (mr === before[device]) return;
          // Every file is opened before a device changes: a refusal leaves them all as they were.
          if (!result.ok) throw new FuzzFailure(`enableLogging failed and changed device ${device}`);
          if (world.resources.some((e) => e.mr === mr)) return;
          world.addResource(mr, { upstream: before[device] });
        });
        const names = new Call(world, 'getLogFilenames').run(() => logging.getLogFilenames());
        if (names.ok && typeof names.value !== 'object') throw new FuzzFailure('getLogFilenames()');
      },
    },
    {
      name: 'logFileNameForDevice',
      covers: [`${pkg}:logFileNameForDevice`],
      args: fc.tuple(
        fc.oneof(fc.constant({ lit: undefined }), V.fileName),
        V.integerAmong(0, 1, 7, 2 ** 31 - 1),
        fc.oneof(fc.constant({ lit: undefined }), V.mixedString),
      ),
      run(world, [n, d, w]) {
        const call = new Call(world, 'logFileNameForDevice');
        const name = call.value(n);
        const device = call.value(d);
        const what = call.value(w);
        if (name === undefined || name === '' || (typeof name === 'string' && name.includes('\0')))
          call.invalid('value'); // no RMM_LOG_FILE in the fuzzer's environment; a name the file system would cut short
        else string(call, name);
        integer(call, device, 0, 2 ** 31 - 1);
        // The name its errors give the argument: a string, or the default.
        if (what !== undefined) string(call, what);
        const result = call.run(() => world.P.logging.logFileNameForDevice(name, device, what));
        if (!result.ok) return;
        // rmm_log.csv -> rmm_log.dev0.csv, absolute (a leading dot is no extension).
        const absolute = resolve(name);
        const extension = extname(basename(absolute));
        const expected = `${absolute.slice(0, absolute.length - extension.length)}.dev${device}${extension}`;
        if (result.value !== expected)
          throw new FuzzFailure(`logFileNameForDevice(${name}, ${device}) is ${result.value}, not ${expected}`);
      },
    },
    {
      name: 'disableLogging',
      covers: [`${pkg}:disableLogging`],
      args: fc.constant(0),
      run(world) {
        const call = new Call(world, 'disableLogging');
        if (call.run(() => world.P.logging.disableLogging()).ok) {
          for (const mr of perDevice(world)) world.adoptResource(mr);
        }
      },
    },
  ];
}
