// Drops a stream, the resource and a buffer before a copy of that buffer, which still has its
// bytes (printed), then leaves buffers on streams nobody holds to the collector (node
// --expose-gc); prints 'ok' once it has run.
import { DeviceBuffer, Stream, getCurrentDeviceResource } from '@rmmjs/core';
import { collect } from '@rmmjs/test-helpers/child';

const stream = new Stream();
const mr = getCurrentDeviceResource();
const a = new DeviceBuffer({ data: new Uint8Array([1, 2, 3]), stream, mr });
const b = a.copy();
stream[Symbol.dispose]();
mr[Symbol.dispose]();
a.free();
console.log([...b.toBytes()].join(','));
b.free();
for (let i = 0; i < 3; i++) new DeviceBuffer({ size: 10, stream: new Stream() });
await collect(1);
console.log('ok');
