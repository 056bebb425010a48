// A 4 MiB arena over a meter, whose last reference goes while a thread is held in its exit hook
// (test-addon's exitHeld; holdAtExitLibrary preloaded): prints, as JSON, what exitHeld returned and
// the bytes the meter counts while the thread is held and after it exited.
import { getCurrentDeviceResource } from '@rmmjs/core';
import { ArenaMemoryResource } from '@rmmjs/arena';
import { CountingResourceAdaptor, exitHeld } from '@rmmjs/test-addon';
import { MiB } from '@rmmjs/test-helpers/bytes';

const meter = new CountingResourceAdaptor(getCurrentDeviceResource());
const mr = new ArenaMemoryResource(meter, { arenaSize: 4 * MiB });
const [held, status, message, whileHeld] = exitHeld(mr, 1000, () => {
  mr[Symbol.dispose]();
  return meter.getAllocatedBytes();
});
console.log(JSON.stringify({ held, status, message, whileHeld, afterExit: meter.getAllocatedBytes() }));
