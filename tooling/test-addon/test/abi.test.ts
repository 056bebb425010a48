// How an addon built with rmmjs/addon.hpp's RMMJS_ADDON takes core's API table: it accepts a
// table of its ABI major that is at least as large as the one it was compiled against (the same
// minor, or a newer core), and refuses another major or an older, smaller table with an error
// that says what to do.
import { abiVersion, coreApi, holdJsException, makeError } from '@rmmjs/core/addon';
import { expect, it } from 'vitest';
import { forgeCoreApi, initAddon } from '../index.js';

// sizeof(rmmjs_core_api) on 64-bit platforms: two uint32_t and a size_t, then function pointers
// (31 in ABI 1.0, 33 in 1.1); 1.2 appends resource_init_checked, a uint32_t (padded) and a size_t;
// 1.3 appends stream_check_device; 1.4 track_owner and untrack_owner.
const SIZE_1_1 = 16 + 33 * 8;
const SIZE_1_2 = SIZE_1_1 + 8 + 8 + 8;
const SIZE_1_3 = SIZE_1_2 + 8;
const SIZE_1_4 = SIZE_1_3 + 2 * 8;

const refusal = (core: string) =>
  `@rmmjs/core's C ABI ${core} does not match this addon's (1.4): install matching versions of @rmmjs packages`;

it('core implements ABI 1.4, and the addon took its table at load', () => {
  expect(abiVersion).toBe('1.4');
  expect(() => initAddon(coreApi, makeError, holdJsException)).not.toThrow();
});

it('accepts the table of a newer core of the same major (a later minor, a larger table)', () => {
  expect(() => initAddon(forgeCoreApi(1, 7, SIZE_1_4 + 64), makeError, holdJsException)).not.toThrow();
});

it('refuses a table of another major, whatever its size', () => {
  expect(() => initAddon(forgeCoreApi(2, 0, SIZE_1_4), makeError, holdJsException)).toThrow(refusal('2.0'));
  expect(() => initAddon(forgeCoreApi(0, 9, SIZE_1_4 + 64), makeError, holdJsException)).toThrow(refusal('0.9'));
});

it('refuses an older core whose table lacks members this addon was compiled with', () => {
  expect(() => initAddon(forgeCoreApi(1, 1, SIZE_1_1), makeError, holdJsException)).toThrow(refusal('1.1'));
  expect(() => initAddon(forgeCoreApi(1, 2, SIZE_1_2), makeError, holdJsException)).toThrow(refusal('1.2'));
  expect(() => initAddon(forgeCoreApi(1, 3, SIZE_1_3), makeError, holdJsException)).toThrow(refusal('1.3'));
  expect(() => initAddon(forgeCoreApi(1, 4, SIZE_1_4 - 8), makeError, holdJsException)).toThrow(refusal('1.4'));
});

it("refuses what is not core's table", () => {
  expect(() => initAddon({} as never, makeError, holdJsException)).toThrow(
    "init(coreApi, makeError, holdJsException) expects @rmmjs/core's API table",
  );
});
