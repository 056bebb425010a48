// 10 capsules of 1 MiB buffers (freed at once), over a limiting adaptor made current, left to the
// collector unconsumed (node --expose-gc): prints the bytes it counts before and after.
import { DeviceBuffer, getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { toDLPack } from '@rmmjs/interop';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { MiB } from '@rmmjs/test-helpers/bytes';
import { collect } from '@rmmjs/test-helpers/child';

const mr = new LimitingResourceAdaptor(getCurrentDeviceResource(), 1 << 30);
setCurrentDeviceResource(mr);
for (let i = 0; i < 10; i++) {
  const buffer = new DeviceBuffer({ size: MiB });
  toDLPack(buffer);
  buffer.free();
}
const held = mr.getAllocatedBytes();
await collect();
console.log(held, mr.getAllocatedBytes());
