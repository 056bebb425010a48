// The debug logger's controls (RMM's set_logging_level & co.), in this process.
import {
  LevelEnum,
  LoggingLevel,
  flushLogger,
  getFlushLevel,
  getLoggingLevel,
  setFlushLevel,
  setLoggingLevel,
  shouldLog,
} from '@rmmjs/logging';
import { thrown } from '@rmmjs/test-helpers';
import { afterEach, describe, expect, it } from 'vitest';

const levels = [
  ['trace', 0],
  ['debug', 1],
  ['info', 2],
  ['warn', 3],
  ['error', 4],
  ['critical', 5],
  ['off', 6],
] as const;

afterEach(() => {
  setLoggingLevel(LevelEnum.info);
  setFlushLevel(LevelEnum.info);
});

describe('LevelEnum', () => {
  it("has rapids-logger's members and values, n_levels 7, and is also LoggingLevel", () => {
    for (const [name, value] of levels) {
      expect(LevelEnum[name]).toBe(value);
      expect(LevelEnum[value]).toBe(name);
    }
    expect(LevelEnum.n_levels).toBe(7);
    expect(LoggingLevel).toBe(LevelEnum);
  });

  it('the defaults are info for both levels', () => {
    expect(getLoggingLevel()).toBe(LevelEnum.info);
    expect(getFlushLevel()).toBe(LevelEnum.info);
  });
});

describe.each(levels)('level %s', (_name, level) => {
  it('set and get the logging level and the flush level', () => {
    setLoggingLevel(level);
    expect(getLoggingLevel()).toBe(level);
    setFlushLevel(level);
    expect(getFlushLevel()).toBe(level);
  });

  it('shouldLog is true at or above the logging level (off included, as in RMM)', () => {
    setLoggingLevel(level);
    for (const [, other] of levels) expect(shouldLog(other)).toBe(other >= level);
  });
});

describe('levels that are not LevelEnum values', () => {
  // RMM's test_invalid_logging_level, plus JavaScript's other non-members.
  const invalid: unknown[] = [
    'INFO',
    'info',
    'invalid',
    100,
    7,
    -1,
    null,
    undefined,
    1.2345,
    Number.NaN,
    [1, 2, 3],
    2n,
    {},
  ];
  it.each(invalid.map((value) => [value]))('%o -> TypeError ERR_INVALID_ARG_TYPE, nothing changed', (value) => {
    for (const fn of [setLoggingLevel, setFlushLevel, shouldLog]) {
      const error = thrown(() => fn(value as LevelEnum));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
      expect(error.message).toContain('"level"');
    }
    expect(getLoggingLevel()).toBe(LevelEnum.info);
    expect(getFlushLevel()).toBe(LevelEnum.info);
  });
});

describe('flushLogger', () => {
  it('flushes (a no-op on stderr)', () => {
    expect(flushLogger()).toBeUndefined();
  });
});
