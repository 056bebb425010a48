// Transfers two buffers (1000 and 3000 bytes) nobody claims, and one it claims and frees, then ends
// (process.exit(3) when the first argument is 'exit'). At exit, after core's own exit listener,
// prints the fake driver's allocations it left live (0 on another backend).
import { DeviceBuffer } from '@rmmjs/core';
import { fakeCuda, onFake } from '@rmmjs/test-helpers';

const live = onFake() ? fakeCuda.stats().liveAllocations : 0;
new DeviceBuffer({ size: 1000 }).transfer();
new DeviceBuffer({ size: 3000 }).transfer();
DeviceBuffer.fromTransferred(new DeviceBuffer({ size: 5 }).transfer()).free();
// Registered after core's (when core was imported), so it runs after it.
process.on('exit', () => console.log(onFake() ? fakeCuda.stats().liveAllocations - live : 0));
if (process.argv[2] === 'exit') process.exit(3);
