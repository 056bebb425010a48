// The current device resource, a counting adaptor of the main thread (a plain DeviceMemoryResource
// here, where the counting adaptor's addon is not loaded yet): loads that addon, stacks an adaptor
// of its own on it and allocates 2048 bytes through both. Answers [the class it sees, [the main
// thread's adaptor's counts, its own adaptor's counts]] taken while the allocation is live.
import { getCurrentDeviceResource } from '@rmmjs/core';
import { loadAddon, resourceHandle, wrapResource } from '@rmmjs/core/addon';
import { answer } from '@rmmjs/test-helpers/worker';

await answer(() => {
  const mr = getCurrentDeviceResource();
  /** @type {import('../counting-adaptor.js').CountingAddon} */
  const counting = loadAddon(import.meta.url, '../../build/test-addons/rmmjs_counting_adaptor', 'counting-adaptor');
  const own = wrapResource(counting.create(resourceHandle(mr, 'upstream')));
  const ptr = own.allocate(2048);
  const counts = [counting.counts(resourceHandle(mr, 'mr')), counting.counts(resourceHandle(own, 'own'))];
  own.deallocate(ptr, 2048);
  own[Symbol.dispose]();
  return [mr.constructor.name, counts];
});
