// Argument arbitraries: mostly valid values (references into the world, sizes that fit), and
// now and then a hostile one, so that runs build up state and still try every bad input.
import fc from 'fast-check';
import { hostBytes, hostile } from './hostile.js';

const VALID = 6;
const HOSTILE = 1;

const mixed = (valid, weight = VALID) =>
  fc.oneof({ weight, arbitrary: valid }, { weight: HOSTILE, arbitrary: hostile });
const lit = (arbitrary) => arbitrary.map((value) => ({ lit: value }));

export const validSize = fc
  .oneof(
    { weight: 3, arbitrary: fc.constantFrom(0, 1, 255, 256, 257, 1000, 4096, 65536) },
    { weight: 6, arbitrary: fc.integer({ min: 0, max: 4096 }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 1 << 20 }) },
    { weight: 1, arbitrary: fc.constantFrom(2 ** 50, 2 ** 53 - 1) }, // out of memory (1 PiB: more than any device or address space, managed memory included)
  )
  .chain((n) => (n >= 2 ** 50 ? fc.constantFrom(n, n, 4096) : fc.constant(n))); // fewer failures: each one costs time

/** A byte count argument. */
export const size = mixed(lit(validSize));

/** A size option: a number or a byte string. */
export function sizeOption(valid) {
  const strings = valid.map((n) => (n % 1024 === 0 && n > 0 ? `${n / 1024} KiB` : `${n} b`));
  return mixed(lit(fc.oneof(valid, strings)));
}

export const resource = fc.oneof(
  { weight: 8, arbitrary: fc.nat().map((i) => ({ r: 'resource', i })) },
  { weight: 3, arbitrary: fc.constant({ r: 'root' }) },
  { weight: 1, arbitrary: fc.constant({ r: 'current' }) },
  { weight: 2, arbitrary: hostile },
);

export const buffer = fc.oneof(
  { weight: 10, arbitrary: fc.nat().map((i) => ({ r: 'buffer', i })) },
  { weight: 1, arbitrary: hostile },
);

/** A stream argument: mostly omitted, else one of the world's, a default stream or hostile. */
export const stream = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ lit: undefined }) },
  { weight: 3, arbitrary: fc.nat().map((i) => ({ r: 'stream', i })) },
  { weight: 1, arbitrary: fc.constantFrom(0, 1, 2).map((which) => ({ r: 'defaultStream', which })) },
  { weight: 1, arbitrary: hostile },
);

/** Host bytes to copy in (valid views over every kind of buffer), or hostile. */
export const host = mixed(hostBytes);

export const bool = mixed(lit(fc.boolean()));

export { hostile };

/** A string argument (a message, a name), or hostile. */
export const mixedString = mixed(
  lit(fc.oneof(fc.string({ maxLength: 16 }), fc.constantFrom('ERR_X', 'Maximum pool size exceeded'))),
);

/** A size argument among these valid values. */
export const sizeAmong = (...valid) => mixed(lit(fc.constantFrom(...valid)));

/** An integer argument among these valid values. */
export const integerAmong = (...valid) => mixed(lit(fc.constantFrom(...valid)));

/**
 * A log file name, relative to the fuzzer's working directory (a fresh temporary one): also a FIFO
 * there (pipe.fifo, and pipe.dev<N>.fifo for enableLogging), which must be refused without
 * blocking, and a name with a null byte.
 */
export const fileName = mixed(
  lit(
    fc.constantFrom(
      'fuzz.csv',
      'logs/fuzz.csv',
      'fuzz',
      '.hidden.csv',
      '',
      '/',
      '/proc/x.csv',
      'pipe.fifo',
      'fu\0zz.csv',
    ),
  ),
);

export const device = mixed(lit(fc.constantFrom(0, 0, 1, 2)));

/** A function argument: one of the world's callback behaviours, or hostile. */
export const callback = (behaviours) =>
  fc.oneof({ weight: VALID, arbitrary: behaviours }, { weight: 1, arbitrary: hostile });

/**
 * An options object: each field absent, present or hostile; or a hostile value instead of the
 * object. Materialized by the world into a fresh plain object.
 */
export function options(fields) {
  const record = {};
  for (const [key, arbitrary] of Object.entries(fields)) {
    record[key] = fc.option(arbitrary, { nil: undefined, freq: 2 });
  }
  const object = fc.record(record).map((o) => {
    const present = {};
    for (const [key, value] of Object.entries(o)) if (value !== undefined) present[key] = value;
    return { o: present };
  });
  return fc.oneof(
    { weight: VALID, arbitrary: object },
    { weight: 1, arbitrary: fc.constant({ lit: undefined }) },
    { weight: HOSTILE, arbitrary: hostile },
  );
}

/** Something the world does from inside a callback or a getter (re-entrancy). */
export const sideAction = fc.oneof(
  fc.record({ act: fc.constant('nothing') }),
  fc.record({ act: fc.constant('freeBuffer'), i: fc.nat() }),
  fc.record({ act: fc.constant('disposeResource'), i: fc.nat() }),
  fc.record({ act: fc.constant('newBuffer'), i: fc.nat(), size: fc.integer({ min: 0, max: 4096 }) }),
  fc.record({ act: fc.constant('resizeBuffer'), i: fc.nat(), size: fc.integer({ min: 0, max: 8192 }) }),
  fc.record({ act: fc.constant('allocate'), i: fc.nat(), size: fc.integer({ min: 0, max: 4096 }) }),
  fc.record({ act: fc.constant('setCurrent'), i: fc.nat() }),
  fc.record({ act: fc.constant('copyBuffer'), i: fc.nat() }),
);
