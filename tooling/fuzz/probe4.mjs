import * as I from '@rmmjs/interop';
const show = async (name, f) => {
  try {
    const v = await f();
    console.log(name, 'OK', v);
  } catch (e) {
    console.log(name, e?.constructor?.name, e?.code, e?.message?.slice(0, 150));
  }
};
await show('new IpcPool()', () => new I.IpcPool());
await show('new IpcPool().close()', () => new I.IpcPool().close());
await show('new IpcPool(5).close()', () => new I.IpcPool(5, 0, 'x').close());
await show('new IpcPool("x").close()', () => new I.IpcPool('x', 0, 'x').close());
await show('new IpcPool(sym).close()', () => new I.IpcPool(Symbol(), 0, 'x').close());
await show('dispose', () => new I.IpcPool('y', 0, 'x')[Symbol.dispose]());
await show('recv timeout 0', () => I.receiveIpcPool('a.sock', { timeout: 0 }));
await show('mappings', () => I.openIpcMappings());
await show('capsule hostile', () => new I.DLPackCapsule({}));
await show('capsule proxy', () => new I.DLPackCapsule(new Proxy({}, {})));
