// The steady state on one stream costs no driver call: a random workload through the C ABI on the
// default stream, run again once the arena holds its superblocks, makes none (fake driver).
import { getCurrentDeviceResource } from '@rmmjs/core';
import { ArenaMemoryResource } from '@rmmjs/arena';
import { MiB, disposeAfterEach, onFake, steadyStateDriverCalls } from '@rmmjs/test-helpers';
import { expect, it } from 'vitest';

const keep = disposeAfterEach();

it.runIf(onFake())('allocations and frees on the default stream make no driver call once warm', async () => {
  const mr = keep(new ArenaMemoryResource(getCurrentDeviceResource(), { arenaSize: 64 * MiB }));
  expect(await steadyStateDriverCalls(mr)).toEqual({});
});
