// logOutstandingAllocations() at the default level (info) and at debug, a deallocation of the
// wrong size through a second tracker and one of a pointer the second never tracked, into the
// debug log (flushed at the end). Prints the pointer (hex) and the bytes the first tracker counts
// then.
import { getCurrentDeviceResource } from '@rmmjs/core';
import { native } from '@rmmjs/core/internal';
import { TrackingResourceAdaptor } from '@rmmjs/tracking';

const mr = new TrackingResourceAdaptor(getCurrentDeviceResource());
const ptr = mr.allocate(1000);
mr.logOutstandingAllocations(); // the default level is info: nothing
native.setLogLevel(1); // debug
mr.logOutstandingAllocations();
const inner = new TrackingResourceAdaptor(mr);
const other = inner.allocate(2000);
inner.deallocate(other, 1000); // logged once: the upstream tracker gets the tracked 2000
inner.deallocate(ptr, 1000); // not tracked by inner: logged, and freed by mr
mr.logOutstandingAllocations();
console.log(ptr.toString(16), mr.getAllocatedBytes());
native.flushLog();
