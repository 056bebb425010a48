// The addon (src/native/addon.cc) against BinningAddon, its interface in src/addon.ts: a function added,
// removed or renamed on either side fails (the list must name every member of BinningAddon).
import { expectAddonExports } from '@rmmjs/test-helpers';
import { it } from 'vitest';
import { addon } from '../dist/addon.js';

it('the addon exports what BinningAddon declares, and nothing else', () => {
  expectAddonExports(addon, ['create', 'addBin', 'hasBin', 'bins']);
});
