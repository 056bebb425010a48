import { parseBytes } from '@rmmjs/core';
import { thrown } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

describe('parseBytes', () => {
  it.each([
    ['2kib', 2048],
    ['2kb', 2000],
    ['2KiB', 2048],
    ['1 MiB', 1048576],
    ['1.5GB', 1500000000],
    ['1.5 gib', 1610612736],
    ['100', 100],
    ['100b', 100],
    ['3tb', 3e12],
    ['1pib', 2 ** 50],
  ])('%s -> %d', (text, bytes) => {
    expect(parseBytes(text)).toBe(bytes);
  });

  it('passes numbers through', () => {
    expect(parseBytes(4096)).toBe(4096);
  });

  it.each(['2k', 'abc', '', '-1kb', '1 kib b', '1e3', 'kb'])('%j does not parse', (text) => {
    const error = thrown(() => parseBytes(text));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe('ERR_INVALID_ARG_VALUE');
    expect(error.message).toContain('Could not parse');
  });

  it('rejects other types and bad numbers', () => {
    expect(thrown(() => parseBytes(12n as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => parseBytes({} as never)).code).toBe('ERR_INVALID_ARG_TYPE');
    expect(thrown(() => parseBytes(-1)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => parseBytes(1.5)).code).toBe('ERR_OUT_OF_RANGE');
    expect(thrown(() => parseBytes('9000 pib')).code).toBe('ERR_OUT_OF_RANGE');
  });
});
