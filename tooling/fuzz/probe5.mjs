import * as E from '@rmmjs/emm-plugin';
const show = async (name, f) => {
  try {
    const v = await f();
    console.log(name, 'OK', v);
  } catch (e) {
    console.log(name, e?.constructor?.name, e?.code, e?.message?.slice(0, 150));
  }
};
const det = new ArrayBuffer(16);
structuredClone(det, { transfer: [det] });
await show('detached AB', () => E.hostAddress(det));
const det2 = new ArrayBuffer(16);
const v2 = new Uint8Array(det2, 4);
structuredClone(det2, { transfer: [det2] });
await show('detached view', () => E.hostAddress(v2));
const rs = new ArrayBuffer(32, { maxByteLength: 64 });
const v3 = new Uint8Array(rs, 16, 8);
rs.resize(4);
await show('shrunk view', () => E.hostAddress(v3));
await show('resizable', () => E.hostAddress(rs));
await show('empty', () => E.hostAddress(new ArrayBuffer(0)));
const m = new E.RMMExternalMemoryManager();
await show('mempin shrunk view', () => m.mempin(v3));
await show('mempin 0 bytes', () => m.mempin(new ArrayBuffer(16), 0, 0));
await show('mempin empty', () => m.mempin(new ArrayBuffer(0)));
await show('mempin bigint ptr', () => {
  const ab = new ArrayBuffer(64);
  return m.mempin(ab, E.hostAddress(ab) + 8n, 8).bytes.byteOffset;
});
await show('mempin DataView', () => {
  const ab = new ArrayBuffer(64);
  return m.mempin(new DataView(ab, 8), 0, 8).bytes.byteOffset;
});
await show('memhostalloc 0', () => m.memhostalloc(0).bytes.length);
await show('memalloc 0', () => m.memalloc(0).ptr);
await show('managed 0', () => m.memallocmanaged(0).ptr);
await show('view', () => {
  const p = m.memalloc(100);
  const v = p.view(10, 20);
  return [v.offset, v.size, v.ptr - p.ptr, v.owner === p, v.buffer === p.buffer, v.view(1).offset];
});
await show('view free', () => {
  const p = m.memalloc(100);
  return p.view(10, 20).free();
});
