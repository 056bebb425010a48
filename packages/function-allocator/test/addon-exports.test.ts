// The addon (src/native/addon.cc) against FunctionAllocatorAddon, its interface in src/native.ts: a function added,
// removed or renamed on either side fails (the list must name every member of FunctionAllocatorAddon).
import { expectAddonExports } from '@rmmjs/test-helpers';
import { it } from 'vitest';
import { addon } from '../dist/native.js';

it('the addon exports what FunctionAllocatorAddon declares, and nothing else', () => {
  expectAddonExports(addon, ['startHooks', 'hookAddresses', 'statistics']);
});
