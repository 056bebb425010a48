// The steady state on one stream costs no driver call: a random workload through the C ABI on the
// default stream, run again once the resource has grown to it, makes none (fake driver).
import { getCurrentDeviceResource } from '@rmmjs/core';
import { FixedSizeMemoryResource } from '@rmmjs/fixed-size';
import { KiB, disposeAfterEach, onFake, steadyStateDriverCalls } from '@rmmjs/test-helpers';
import { expect, it } from 'vitest';

const keep = disposeAfterEach();

it.runIf(onFake())('allocations and frees on the default stream make no driver call once warm', async () => {
  const mr = keep(new FixedSizeMemoryResource(getCurrentDeviceResource(), { blockSize: 64 * KiB }));
  expect(await steadyStateDriverCalls(mr, { maxSize: 64 * KiB })).toEqual({});
});
