// A buffer of the current device resource handed to the torch free hook, which ignores it (the
// hooks did not allocate it): prints the hooks' foreign frees and the buffer's pointer (hex), for
// the line in the debug log.
import { DeviceBuffer } from '@rmmjs/core';
import { allocatorHookStatistics, allocatorHooks } from '@rmmjs/function-allocator';
import { allocatorHookConsumer as consumer } from '@rmmjs/test-addon';

const buffer = new DeviceBuffer({ size: 256 });
consumer.torchFree(allocatorHooks.torch.free.address, buffer.ptr, 256, 0, 0n);
console.log(allocatorHookStatistics().foreignFrees, `0x${buffer.ptr.toString(16)}`);
buffer.free();
