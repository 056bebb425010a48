// The teardown of a run, on commands written down (the child's `commands` mode): what a run made
// is given back, down to the fake driver's streams.
import { describe, expect, it } from 'vitest';
import { runChild } from '../src/parent.js';

const backend = process.env.RMMJS_TEST_BACKEND ?? 'host';

// A CallbackMemoryResource over the run's root whose allocate passes through and whose deallocate
// is a function that always throws, and a Stream of the run's own.
const throwingDeallocate = [
  ['new CallbackMemoryResource', [{ r: 'root' }, { seq: [{ b: 'pass' }] }, { h: 'throwingFunction' }]],
  ['new Stream', [0, { o: {} }]],
];
const onStream = { r: 'stream', i: 0 };
const fromCallbackResource = { r: 'resource', i: 0 };

// Each makes buffers of that resource on that stream: their free() throws at the teardown.
const runs = {
  'rmmAllocator from the current resource': [
    ...throwingDeallocate,
    ['setCurrentDeviceResource', [0, fromCallbackResource]],
    ['rmmAllocator, rmmMemoryAllocator, new RmmMemory', ['rmmAllocator', { lit: 4096 }, onStream]],
  ],
  'an RmmMemory and its slice': [
    ...throwingDeallocate,
    ['setCurrentDeviceResource', [0, fromCallbackResource]],
    ['rmmAllocator, rmmMemoryAllocator, new RmmMemory', ['new', { lit: 4096 }, onStream]],
    ['RmmMemory#slice', [0, { lit: 1 }, { lit: 100 }]],
  ],
  'new DeviceBuffer with the resource as mr': [
    ...throwingDeallocate,
    ['new DeviceBuffer', [{ o: { size: { lit: 4096 }, stream: onStream, mr: fromCallbackResource } }, 0]],
  ],
};

// The fake driver counts the streams: host mode has none to count.
describe.runIf(backend === 'fake')('the teardown of a buffer whose free() throws', () => {
  // The world lets go of such a buffer (and the RmmMemory over it): collected, it gives its stream
  // back. It kept it, one stream a run, until the process ended.
  it.each(Object.entries(runs))('leaves no stream behind: %s', (_, commands) => {
    const { result, crash } = runChild({ mode: 'commands', commands, repeat: 3 }, { timeoutMs: 120_000 });
    expect(crash).toBeUndefined();
    expect(result.failure?.error).toBeUndefined();
    expect(result.runs).toBe(3);
    expect(result.liveStreams.after).toBe(result.liveStreams.before);
  });
});
