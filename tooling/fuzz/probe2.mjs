import * as E from '@rmmjs/emm-plugin';
import * as F from '@rmmjs/function-allocator';
import { fakeCuda } from '@rmmjs/test-helpers';
const show = async (name, f) => {
  try {
    const v = await f();
    console.log(name, 'OK', v);
  } catch (e) {
    console.log(name, e?.constructor?.name, e?.code, e?.message?.slice(0, 120));
  }
};
const m = new E.RMMExternalMemoryManager();
await show('new MP', () => new E.MemoryPointer());
await show('new PinnedMemory', () => new E.PinnedMemory(1));
await show('memalloc', () => m.memalloc(100).ptr);
await show('managed', () => m.memallocmanaged(100).ptr);
await show('hostalloc', () => m.memhostalloc(100, { mapped: true }).bytes.length);
const ab = new ArrayBuffer(4096);
const pin = m.mempin(ab, 0, 100);
await show('mempin', () => pin.hostPtr);
await show('mempin again', () => m.mempin(ab, 0, 100).hostPtr);
await show('mempin resizable', () => m.mempin(new ArrayBuffer(10, { maxByteLength: 20 })));
await show('info', () => m.getMemoryInfo());
await show('deferCleanup', () => m.deferCleanup(() => 5));
await show('deferCleanup hostile', () => m.deferCleanup(5));
await show('hostAddress', () => E.hostAddress(ab));
await show('new manager dev', () => new E.RMMExternalMemoryManager({ device: 5 }));
const scope = m.deferCleanup();
const h = m.memhostalloc(64);
h.free();
await show('bytes after free', () => h.bytes);
await show('reset', () => m.reset());
scope[Symbol.dispose]();
await show('hooks', () => F.allocatorHooks);
await show('hookstats', () => F.allocatorHookStatistics());
const r = F.rmmMemoryAllocator(100);
await show('slice', () => r.slice(-10).byteLength);
await show('slice big', () => r.slice(0, 1e20).byteLength);
await show('tag', () => String(r));
await show('rmmAllocator', () => F.rmmAllocator(10, null));
await show('fake stats', () => fakeCuda.stats());
