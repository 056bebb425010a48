import { DeviceBuffer, DeviceMemoryResource, Stream, DEFAULT_STREAM, getCurrentDeviceResource } from '@rmmjs/core';
import { holdMemory, adoptMemory, guardBuffer } from '@rmmjs/core/addon';
import { fakeCuda } from '@rmmjs/test-helpers';
const show = async (name, f) => {
  try {
    const v = await f();
    console.log(name, 'OK', v);
  } catch (e) {
    console.log(name, e?.constructor?.name, e?.code, e?.message?.slice(0, 120));
  }
};
const s = new Stream();
const b = new DeviceBuffer({ size: 100, stream: s });
const t = b.transfer();
console.log(t);
const c = DeviceBuffer.fromTransferred(t);
await show('claimed stream', () => [
  c.stream === s,
  c.stream === c.stream,
  c.stream.handle,
  s.handle,
  c.capacity(),
  c.size,
]);
await show('again', () => DeviceBuffer.fromTransferred(t));
await show('reclaim claimed', () => DeviceBuffer.reclaim(t));
await show('json', () => DeviceBuffer.fromTransferred(JSON.parse(JSON.stringify(t))));
await show('pid', () => DeviceBuffer.reclaim({ ...t, pid: 1 }));
await show('mac', () => DeviceBuffer.reclaim({ ...t, mac: 'x' + t.mac.slice(1) }));
await show('id', () => DeviceBuffer.reclaim({ ...t, id: '12345' }));
await show('proc', () => DeviceBuffer.reclaim({ ...t, process: 'abc' }));
const b0 = new DeviceBuffer({ size: 10 });
const t0 = b0.transfer();
const c0 = DeviceBuffer.fromTransferred(t0);
await show('default claimed stream', () => [c0.stream === DEFAULT_STREAM, c0.stream.handle]);
const mr = getCurrentDeviceResource();
const tok = mr.share();
console.log(tok);
await show('fromShared', () => DeviceMemoryResource.fromShared(tok) === mr);
await show('fromShared buffer token', () => DeviceMemoryResource.fromShared(t));
await show('hold', () => {
  const h = holdMemory(c);
  const a = adoptMemory(h);
  const r = [a.ptr === c.ptr, a.size, a.mr === mr];
  a.free();
  return r;
});
const h2 = holdMemory(c);
await show('adopt twice', () => {
  adoptMemory(h2).free();
  return adoptMemory(h2);
});
await show('guard junk', () => guardBuffer(c, {}));
await show('guard memory handle', () => guardBuffer(c, holdMemory(c)));
await show('adopt proxy', () => adoptMemory(new Proxy(holdMemory(c), {})));
c.free();
c0.free();
s[Symbol.dispose]();
globalThis.gc?.();
await new Promise((r) => setTimeout(r, 10));
console.log(fakeCuda.stats?.());
