// The addon (src/native/addon.cc) against EmmPluginAddon, its interface in src/native.ts: a function added,
// removed or renamed on either side fails (the list must name every member of EmmPluginAddon).
import { expectAddonExports } from '@rmmjs/test-helpers';
import { it } from 'vitest';
import { addon } from '../dist/native.js';

it('the addon exports what EmmPluginAddon declares, and nothing else', () => {
  expectAddonExports(addon, ['hostAlloc', 'hostRegister', 'managedAlloc', 'detach', 'release', 'address']);
});
