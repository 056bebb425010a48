// The scripts' command lines (arguments.mjs): what parseOptions makes of them, and the message of
// each mistake.
import { describe, expect, it } from 'vitest';
import { parseOptions, UsageError } from '../arguments.mjs';

const options = {
  quick: { type: 'boolean' },
  json: { type: 'string', value: 'FILE' },
  runs: { type: 'string', value: 'N', number: { min: 1, whole: true } },
  seconds: { type: 'string', value: 'S', number: { min: 0 } },
  chunks: { type: 'string', value: 'LIST', list: { min: 1, max: 64, whole: true } },
  file: { type: 'string', value: 'FILE', multiple: true },
  child: { type: 'boolean', internal: true },
};
const listed = 'options: --quick, --json FILE, --runs N, --seconds S, --chunks LIST, --file FILE';

function mistake(args: string[], positionals?: { what: string; max?: number }) {
  try {
    parseOptions(options, args, positionals);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`${args.join(' ')} was accepted`);
}

describe('parseOptions', () => {
  it('gives flags, values, numbers, lists and repeated options', () => {
    const args = ['--quick', '--json', 'out.json', '--runs=3', '--seconds', '0.5', '--chunks', '4,8', '--file', 'a'];
    expect(parseOptions(options, [...args, '--file=b', '--child'], undefined)).toEqual({
      values: { quick: true, json: 'out.json', runs: 3, seconds: 0.5, chunks: [4, 8], file: ['a', 'b'], child: true },
      positionals: [],
    });
    expect(parseOptions(options, [], undefined)).toEqual({ values: {}, positionals: [] });
  });

  it('takes positional arguments where the script has them, also after --', () => {
    expect(parseOptions(options, ['pool,core', '--quick'], { what: 'one list of packages', max: 1 })).toEqual({
      values: { quick: true },
      positionals: ['pool,core'],
    });
    expect(parseOptions(options, ['a', '--', '--b'], { what: 'folders' }).positionals).toEqual(['a', '--b']);
  });

  it('refuses an unknown option, long or short, listing the options but the internal ones', () => {
    expect(mistake(['--bogus'])).toBe(`unknown option --bogus (${listed})`);
    expect(mistake(['--quick', '-q'])).toBe(`unknown option -q (${listed})`);
    expect(mistake(['--bogus=1'])).toBe(`unknown option --bogus (${listed})`);
  });

  it('says that a script takes no options', () => {
    try {
      parseOptions({}, ['--bogus'], undefined);
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toBe('unknown option --bogus (it takes no options)');
    }
  });

  it('refuses an option without its value, also where another option follows', () => {
    expect(mistake(['--json'])).toBe('--json needs a value (--json FILE)');
    expect(mistake(['--json', '--quick'])).toBe('--json needs a value (--json FILE)');
    expect(mistake(['--runs', '--quick'])).toBe('--runs needs a value (--runs N)');
  });

  it('refuses a value given to a flag', () => {
    expect(mistake(['--quick=yes'])).toBe('--quick takes no value');
  });

  it('refuses a number that is not one, or not in range, or not whole', () => {
    expect(mistake(['--runs', 'many'])).toBe('--runs takes a whole number >= 1, not many');
    expect(mistake(['--runs', '0'])).toBe('--runs takes a whole number >= 1, not 0');
    expect(mistake(['--runs', '2.5'])).toBe('--runs takes a whole number >= 1, not 2.5');
    expect(mistake(['--seconds', '-1'])).toBe('--seconds takes a number >= 0, not -1');
    expect(mistake(['--seconds', 'Infinity'])).toBe('--seconds takes a number >= 0, not Infinity');
    expect(mistake(['--chunks', '4,x'])).toBe('--chunks takes whole numbers from 1 to 64 separated by commas, not 4,x');
    expect(mistake(['--chunks', '4,,8'])).toBe(
      '--chunks takes whole numbers from 1 to 64 separated by commas, not 4,,8',
    );
    expect(mistake(['--chunks', '128'])).toBe('--chunks takes whole numbers from 1 to 64 separated by commas, not 128');
  });

  it('refuses a positional argument where the script takes none, or one too many', () => {
    expect(mistake(['extra'])).toBe(`unexpected argument extra (${listed})`);
    expect(mistake(['pool', 'core'], { what: 'one list of packages', max: 1 })).toBe(
      'unexpected argument core (it takes one list of packages)',
    );
  });
});
