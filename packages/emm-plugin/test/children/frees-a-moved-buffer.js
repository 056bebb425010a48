// 4 MiB from memhostalloc whose ArrayBuffer JavaScript moved into another one (transfer(): the same
// memory, no copy), then free() (node --expose-gc; Node 20 needs --harmony-rab-gsab-transfer).
// Prints, as JSON: the moved buffer's length and bytes after free() (written there after it), and
// the fake driver's live allocations (null elsewhere) after free() and once the moved buffer was
// collected.
import { RMMExternalMemoryManager } from '@rmmjs/emm-plugin';
import { fakeCuda, onFake } from '@rmmjs/test-helpers';
import { collect } from '@rmmjs/test-helpers/child';

const before = onFake() ? fakeCuda.stats().liveAllocations : 0;
// The fake driver's live allocations since the start (null on other backends).
const live = () => (onFake() ? fakeCuda.stats().liveAllocations - before : null);
const memory = new RMMExternalMemoryManager().memhostalloc(4 << 20);
memory.bytes.fill(3);
/** @type {ArrayBuffer | undefined} */
let moved = /** @type {any} */ (memory.bytes.buffer).transfer();
memory.free();
const afterFree = live();
const [length, kept] = (() => {
  const view = new Uint8Array(/** @type {ArrayBuffer} */ (moved));
  const threes = view.every((byte) => byte === 3);
  view.fill(9); // the memory must still be there
  return [view.length, threes];
})();
moved = undefined;
await collect();
console.log(JSON.stringify({ length, kept, afterFree, afterCollect: live() }));
