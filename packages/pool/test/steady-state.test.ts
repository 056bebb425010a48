// The steady state on one stream costs no driver call: a random workload through the C ABI on the
// default stream, run again once the pool has grown to it, makes none (fake driver).
import { getCurrentDeviceResource } from '@rmmjs/core';
import { PoolMemoryResource } from '@rmmjs/pool';
import { MiB, disposeAfterEach, onFake, steadyStateDriverCalls } from '@rmmjs/test-helpers';
import { expect, it } from 'vitest';

const keep = disposeAfterEach();

it.runIf(onFake())('allocations and frees on the default stream make no driver call once warm', async () => {
  const mr = keep(new PoolMemoryResource(getCurrentDeviceResource(), { initialPoolSize: 32 * MiB }));
  expect(await steadyStateDriverCalls(mr)).toEqual({});
});
