// A hold on a buffer's memory (holdMemory) that nobody takes, the buffer freed: collected (node
// --expose-gc) without a crash; prints 'ok'.
import { DeviceBuffer } from '@rmmjs/core';
import { holdMemory } from '@rmmjs/core/addon';
import { collect } from '@rmmjs/test-helpers/child';

const buffer = new DeviceBuffer({ size: 1 << 20 });
holdMemory(buffer);
buffer.free();
await collect();
console.log('ok');
