// The addon (src/native/addon.cc) against TrackingAddon, its interface in src/addon.ts: a function added,
// removed or renamed on either side fails (the list must name every member of TrackingAddon).
import { expectAddonExports } from '@rmmjs/test-helpers';
import { it } from 'vitest';
import { addon } from '../dist/addon.js';

it('the addon exports what TrackingAddon declares, and nothing else', () => {
  expectAddonExports(addon, [
    'create',
    'setStackCapturer',
    'allocatedBytes',
    'outstandingCount',
    'outstandingAllocationsStr',
    'logOutstandingAllocations',
  ]);
});
