// A pool of 1 KiB that may grow to 2 KiB: a request it cannot grow for (at the default level),
// growth at level debug, then another such request at level critical. Prints each refusal's code.
import { getCurrentDeviceResource } from '@rmmjs/core';
import { LevelEnum, setLoggingLevel } from '@rmmjs/logging';
import { PoolMemoryResource } from '@rmmjs/pool';

/** @param {() => unknown} fn */
const refusal = (fn) => {
  try {
    fn();
  } catch (error) {
    console.log(/** @type {{ code: string }} */ (error).code);
  }
};
const mr = new PoolMemoryResource(getCurrentDeviceResource(), { initialPoolSize: 1024, maximumPoolSize: 2048 });
const a = mr.allocate(1024);
refusal(() => mr.allocate(4096));
setLoggingLevel(LevelEnum.debug);
const b = mr.allocate(1024);
setLoggingLevel(LevelEnum.critical);
refusal(() => mr.allocate(4096));
mr.deallocate(a, 1024);
mr.deallocate(b, 1024);
