// 50 buffers of 1 MiB left unreachable, then collected (node --expose-gc): prints whether the
// external memory this isolate counts grew by 50 MiB, and whether it is back within 1 MiB of
// where it started. The probe addon's path is the first argument.
import { createRequire } from 'node:module';
import { DeviceBuffer } from '@rmmjs/core';
import { MiB } from '@rmmjs/test-helpers/bytes';
import { collect } from '@rmmjs/test-helpers/child';

/** @type {import('../probe.js').Probe} */
const probe = createRequire(import.meta.url)(/** @type {string} */ (process.argv[2]));
const start = probe.externalMemory();
for (let i = 0; i < 50; i++) new DeviceBuffer({ size: MiB });
const grown = probe.externalMemory() - start;
await collect();
const left = probe.externalMemory() - start;
// Other allocations move the total a little: compare in whole MiB.
console.log(Math.round(grown / MiB) === 50, Math.abs(left) < MiB);
