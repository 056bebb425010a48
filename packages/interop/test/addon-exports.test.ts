// The addon (src/native/addon.cc) against InteropAddon, its interface in src/addon.ts: a function added,
// removed or renamed on either side fails (the list must name every member of InteropAddon).
import { expectAddonExports } from '@rmmjs/test-helpers';
import { it } from 'vitest';
import { addon } from '../dist/addon.js';

it('the addon exports what InteropAddon declares, and nothing else', () => {
  expectAddonExports(addon, [
    'toDLPack',
    'fromDLPack',
    'capsuleInfo',
    'releaseCapsule',
    'isCapsule',
    'exportIpc',
    'newLeaseGuard',
    'leaseActive',
    'processToken',
    'openIpc',
    'importPool',
    'closePool',
    'openMappings',
    'sendPool',
    'receivePoolDescriptor',
    'closeDescriptor',
  ]);
});
