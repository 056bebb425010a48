// enableLogging / disableLogging / getLogFilenames over the process-wide registry.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceBuffer, cuda, getCurrentDeviceResource, getPerDeviceResource, setPerDeviceResource } from '@rmmjs/core';
import {
  LoggingResourceAdaptor,
  disableLogging,
  enableLogging,
  getLogFilenames,
  logFileNameForDevice,
} from '@rmmjs/logging';
import { thrown, withCuda } from '@rmmjs/test-helpers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseLog } from './csv.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rmmjs-enable-logging-'));
});
afterEach(() => {
  disableLogging();
  rmSync(dir, { recursive: true, force: true });
});

describe('enableLogging', () => {
  it('wraps the current resource of device 0; disableLogging puts it back', () => {
    const before = getCurrentDeviceResource();
    enableLogging(join(dir, 'rmm_log.csv'));
    const mr = getCurrentDeviceResource();
    expect(mr).toBeInstanceOf(LoggingResourceAdaptor);
    expect((mr as LoggingResourceAdaptor).upstreamMr).toBe(before);
    const file = join(dir, 'rmm_log.dev0.csv');
    expect(getLogFilenames()[0]).toBe(file);

    const buffer = new DeviceBuffer({ size: 1234 });
    const ptr = buffer.ptr;
    buffer.free();
    disableLogging();
    expect(getCurrentDeviceResource()).toBe(before);
    expect(getLogFilenames()[0]).toBeNull();
    // disableLogging wrote the file out
    expect(parseLog(readFileSync(file, 'utf8')).map((e) => [e.action, e.pointer, e.size])).toEqual([
      ['allocate', ptr, 1234],
      ['free', ptr, 1234],
    ]);
  });

  it('is idempotent: a device that logs already keeps its adaptor', () => {
    enableLogging(join(dir, 'first.csv'));
    const mr = getCurrentDeviceResource();
    enableLogging(join(dir, 'second.csv'));
    expect(getCurrentDeviceResource()).toBe(mr);
    expect(getLogFilenames()[0]).toBe(join(dir, 'first.dev0.csv'));
  });

  it.each([
    ['rmm_log.csv', 'rmm_log.dev0.csv'],
    ['rmm.log', 'rmm.dev0.log'],
    ['log', 'log.dev0'],
    ['.hidden', '.hidden.dev0'],
    ['a.b.csv', 'a.b.dev0.csv'],
    ['with.dot/log', 'with.dot/log.dev0'],
  ])("'%s' on device 0 writes the absolute '%s'", (name, expected) => {
    const saved = process.cwd();
    try {
      process.chdir(dir);
      mkdirSync(join(dir, 'with.dot'), { recursive: true });
      enableLogging(name);
      expect(getLogFilenames()[0]).toBe(join(dir, expected));
    } finally {
      process.chdir(saved);
    }
  });

  it('the default name is $RMM_LOG_FILE; neither -> TypeError ERR_INVALID_ARG_VALUE, nothing changed', () => {
    const saved = process.env.RMM_LOG_FILE;
    const before = getCurrentDeviceResource();
    try {
      delete process.env.RMM_LOG_FILE;
      const error = thrown(() => enableLogging());
      expect(error).toBeInstanceOf(TypeError);
      expect(error.code).toBe('ERR_INVALID_ARG_VALUE');
      expect(error.message).toMatch(/^The argument "logFileName" must be given when RMM_LOG_FILE is not set/);
      expect(getCurrentDeviceResource()).toBe(before);
      expect(thrown(() => enableLogging(7 as never)).message).toBe(
        'The "logFileName" argument must be of type string. Received type number (7)',
      );

      process.env.RMM_LOG_FILE = join(dir, 'env.csv');
      enableLogging();
      expect(getLogFilenames()[0]).toBe(join(dir, 'env.dev0.csv'));
    } finally {
      if (saved === undefined) delete process.env.RMM_LOG_FILE;
      else process.env.RMM_LOG_FILE = saved;
    }
  });

  it.runIf(withCuda() && cuda.getDeviceCount() >= 2)(
    'every initialized device gets its own file; devices not in use are left alone',
    () => {
      // Device 1 is initialized once something asks for its resource.
      const device1 = getPerDeviceResource(1);
      enableLogging(join(dir, 'rmm_log.csv'));
      expect(getLogFilenames()).toEqual({ 0: join(dir, 'rmm_log.dev0.csv'), 1: join(dir, 'rmm_log.dev1.csv') });
      const mr1 = getPerDeviceResource(1) as LoggingResourceAdaptor;
      expect(mr1).toBeInstanceOf(LoggingResourceAdaptor);
      expect(mr1.device).toBe(1);
      expect(mr1.upstreamMr).toBe(device1);
      const buffer = new DeviceBuffer({ size: 100, mr: mr1 });
      buffer.free();
      mr1.flush();
      (getPerDeviceResource(0) as LoggingResourceAdaptor).flush();
      expect(parseLog(readFileSync(join(dir, 'rmm_log.dev1.csv'), 'utf8'))).toHaveLength(2);
      expect(parseLog(readFileSync(join(dir, 'rmm_log.dev0.csv'), 'utf8'))).toHaveLength(0);

      // Only device 1 logging: disableLogging leaves device 0's resource as it is.
      setPerDeviceResource(0, (getPerDeviceResource(0) as LoggingResourceAdaptor).upstreamMr);
      const device0 = getPerDeviceResource(0);
      expect(getLogFilenames()).toEqual({ 0: null, 1: join(dir, 'rmm_log.dev1.csv') });
      disableLogging();
      expect(getPerDeviceResource(0)).toBe(device0);
      expect(getPerDeviceResource(1)).toBe(device1);
      expect(getLogFilenames()).toEqual({ 0: null, 1: null });
    },
  );

  it.runIf(withCuda() && cuda.getDeviceCount() >= 2)(
    'a file that cannot be opened for one device is RMMError ERR_RMM_LOGIC, and no device changes',
    () => {
      const device0 = getPerDeviceResource(0);
      const device1 = getPerDeviceResource(1);
      mkdirSync(join(dir, 'rmm_log.dev1.csv')); // a directory where device 1's file would be
      const error = thrown(() => enableLogging(join(dir, 'rmm_log.csv')));
      expect(error.code).toBe('ERR_RMM_LOGIC');
      expect(error.message).toBe(`Failed opening file ${join(dir, 'rmm_log.dev1.csv')} for writing: Is a directory`);
      expect([getPerDeviceResource(0), getPerDeviceResource(1)]).toEqual([device0, device1]);
      expect(getLogFilenames()).toEqual({ 0: null, 1: null });
    },
  );
});

describe('logFileNameForDevice', () => {
  it('puts .dev<device> before the extension, made absolute', () => {
    expect(logFileNameForDevice(join(dir, 'rmm_log.csv'), 1)).toBe(join(dir, 'rmm_log.dev1.csv'));
    expect(logFileNameForDevice(join(dir, '.hidden'), 0)).toBe(join(dir, '.hidden.dev0'));
  });

  it('refuses a name for its errors that is not a string (ERR_INVALID_ARG_TYPE), before reading the file name', () => {
    for (const name of [0, null, Symbol('name'), {}]) {
      const error = thrown(() => logFileNameForDevice(undefined, 0, name as never));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
      expect(error.message).toContain('"name"');
    }
  });
});
