// Eight workers and the main thread over one stack at once (the process-wide current resource):
// random allocations, frees, resizes and copies with every buffer's bytes checked before it is
// freed; then, with workers terminated mid-work, the same. Nothing may be corrupted, and the stack
// must give back everything (its counters at what the main thread still holds, its meter at 0,
// nothing live in the fake driver).
import { setCurrentDeviceResource } from '@rmmjs/core';
import { withCuda } from '@rmmjs/test-helpers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildStack, expectedCounters, needsCuda } from '../src/stacks.js';
import { startWorker, workerPool } from '../src/threads.js';
import { Workload } from '../src/workload.js';
import { liveInDriver, scaled, seed } from './common.js';

const WORKERS = 8;
const STEPS = scaled(250);
const workloadOptions = { streams: 2, maxLive: 16, maxSize: 64 * 1024 };

// Workers take long to start on a small machine: one pool of them serves every stack, and only the
// deepest stacks also run with workers terminated (which takes new ones).
const stacks = [
  { spec: 'Pool(Current)', resource: 'PoolMemoryResource', terminate: false },
  { spec: 'Arena(Current)', resource: 'ArenaMemoryResource', terminate: false },
  { spec: 'Statistics(Limiting(Pool(Current)))', resource: 'StatisticsResourceAdaptor', terminate: true },
  { spec: 'Tracking(Binning(Arena(Current)))', resource: 'TrackingResourceAdaptor', terminate: true },
  { spec: 'Statistics(Limiting(CudaAsync))', resource: 'StatisticsResourceAdaptor', terminate: true },
].filter(({ spec }) => withCuda() || !needsCuda(spec));

let workers: Awaited<ReturnType<typeof workerPool>>;
beforeAll(async () => {
  workers = await workerPool(WORKERS);
});
afterAll(() => workers?.close());

console.log(`stress threads: RMMJS_TEST_SEED=${seed}, ${STEPS} steps per thread`);

// Runs fn with the stack as the current device resource; then checks that the stack gives
// everything back once closed.
async function withStack(spec: string, fn: (stack: ReturnType<typeof buildStack>) => Promise<void>) {
  const before = liveInDriver();
  const stack = buildStack(spec);
  const previous = setCurrentDeviceResource(stack.top);
  try {
    await fn(stack);
  } finally {
    setCurrentDeviceResource(previous);
  }
  expect(stack.close(), 'bytes the stack still holds from its base').toBe(0);
  expect(liveInDriver()).toEqual(before);
}

describe.each(stacks)('$spec: 8 workers and the main thread', ({ spec, resource, terminate }) => {
  it('allocate, free, resize and copy at random: no corruption, and everything comes back', async () => {
    await withStack(spec, async (stack) => {
      const running = workers.run((i) => ({ ...workloadOptions, seed: seed + 1 + i, steps: STEPS }));
      const main = new Workload({ ...workloadOptions, seed });
      await main.run(STEPS);
      const results = await running;
      for (const result of results) {
        expect(result.resource).toBe(resource);
        expect(result.counts.steps).toBe(STEPS);
        expect(result.counts.checks).toBeGreaterThan(0);
      }
      expect(stack.counters()).toEqual(expectedCounters(stack, main.liveCapacities()));
      main.close();
      expect(stack.counters()).toEqual(expectedCounters(stack, []));
    });
  });

  if (!terminate) return;
  it('workers terminated mid-work: their buffers come back, the main thread goes on', async () => {
    await withStack(spec, async (stack) => {
      const workers = Array.from({ length: WORKERS }, (_, i) =>
        startWorker({ ...workloadOptions, seed: seed + 101 + i, forever: true, progressEvery: 20 }),
      );
      const main = new Workload({ ...workloadOptions, seed: seed + 100 });
      await main.run(STEPS / 2);
      await Promise.all(workers.map(({ firstProgress }) => firstProgress));
      // Each worker holds buffers (and may be inside an asynchronous copy) when it is terminated.
      const exitCodes = await Promise.all(workers.map(({ worker }) => worker.terminate()));
      expect(exitCodes).toEqual(Array(WORKERS).fill(1));
      for (const { done } of workers) expect(await done).toEqual({ exitCode: 1 });
      await main.run(STEPS / 2);
      expect(stack.counters()).toEqual(expectedCounters(stack, main.liveCapacities()));
      main.close();
      expect(stack.counters()).toEqual(expectedCounters(stack, []));
    });
  });
});
