// A deallocation of the wrong size at level critical, into the debug log (flushed at the end).
import { getCurrentDeviceResource } from '@rmmjs/core';
import { native } from '@rmmjs/core/internal';
import { TrackingResourceAdaptor } from '@rmmjs/tracking';

native.setLogLevel(5); // critical
const mr = new TrackingResourceAdaptor(getCurrentDeviceResource());
const ptr = mr.allocate(100);
mr.deallocate(ptr, 99);
native.flushLog();
