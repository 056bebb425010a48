// The addon (src/native/addon.cc) against FixedSizeAddon, its interface in src/addon.ts: a function added,
// removed or renamed on either side fails (the list must name every member of FixedSizeAddon).
import { expectAddonExports } from '@rmmjs/test-helpers';
import { it } from 'vitest';
import { addon } from '../dist/addon.js';

it('the addon exports what FixedSizeAddon declares, and nothing else', () => {
  expectAddonExports(addon, ['create', 'blockSize']);
});
