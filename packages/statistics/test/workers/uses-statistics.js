// The statistics the main thread enabled, from here: 250 buffers allocated and freed through the
// current device resource. Answers whether it is the adaptor and the statistics are Statistics.
import { DeviceBuffer, getCurrentDeviceResource } from '@rmmjs/core';
import { Statistics, StatisticsResourceAdaptor, getStatistics } from '@rmmjs/statistics';
import { answer } from '@rmmjs/test-helpers/worker';

await answer(() => {
  const before = getStatistics();
  const buffers = [];
  for (let i = 0; i < 250; i++) buffers.push(new DeviceBuffer({ size: 1 + i }));
  for (const buffer of buffers) buffer.free();
  return [getCurrentDeviceResource() instanceof StatisticsResourceAdaptor, before instanceof Statistics];
});
