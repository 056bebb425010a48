// 20 buffers adopted over memory the lender addon (test/addon/lender.c) lends, dropped without
// free(), and a lent handle nobody takes; prints how many the lender saw released once they are
// collected (node --expose-gc). The lender addon's path is the first argument.
import { createRequire } from 'node:module';
import { adoptMemory, coreApi } from '@rmmjs/core/addon';
import { collect } from '@rmmjs/test-helpers/child';

/** @type {{ init(api: unknown): void, lend(bytes: number, device: number): import('@rmmjs/core/addon').MemoryHandle, released(): number }} */
const lender = createRequire(import.meta.url)(/** @type {string} */ (process.argv[2]));
lender.init(coreApi);
for (let i = 0; i < 20; i++) adoptMemory(lender.lend(4096, 0));
lender.lend(4096, 0); // a handle nobody takes
await collect();
console.log(lender.released());
