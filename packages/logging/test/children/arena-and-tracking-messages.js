// At the default level: an arena of 1 MiB that dumps its state when an allocation of 8 MiB fails,
// then a tracking adaptor's report of what is outstanding and a deallocation of the wrong size.
import { getCurrentDeviceResource } from '@rmmjs/core';
import { ArenaMemoryResource } from '@rmmjs/arena';
import '@rmmjs/logging';
import { TrackingResourceAdaptor } from '@rmmjs/tracking';

const arena = new ArenaMemoryResource(getCurrentDeviceResource(), { arenaSize: '1 MiB', dumpLogOnFailure: true });
try {
  arena.allocate(8 * 1024 * 1024);
} catch {}
const tracked = new TrackingResourceAdaptor(getCurrentDeviceResource());
const ptr = tracked.allocate(100);
tracked.logOutstandingAllocations();
tracked.deallocate(ptr, 99);
