// pushStatistics() and popStatistics() from here, around one buffer of 40 bytes: answers what was popped.
import { DeviceBuffer } from '@rmmjs/core';
import { popStatistics, pushStatistics } from '@rmmjs/statistics';
import { answer } from '@rmmjs/test-helpers/worker';

await answer(() => {
  pushStatistics();
  const buffer = new DeviceBuffer({ size: 40 });
  const popped = popStatistics();
  buffer.free();
  return { ...popped };
});
