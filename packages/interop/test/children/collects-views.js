// 10 views of capsules of the DLPack peer (the addon at its first argument) and a capsule nobody
// consumes, left to the collector (node --expose-gc): prints how many the peer saw deleted.
import { createRequire } from 'node:module';
import { fromDLPack } from '@rmmjs/interop';
import { collect } from '@rmmjs/test-helpers/child';

/** @type {{ produce(spec: { bytes: number }): object, deleted(): number }} */
const peer = createRequire(import.meta.url)(/** @type {string} */ (process.argv[2]));
for (let i = 0; i < 10; i++) fromDLPack(peer.produce({ bytes: 4096 }));
peer.produce({ bytes: 16 }); // a capsule nobody consumes
await collect();
console.log(peer.deleted());
