// Worker threads (RMM's mr_ref_test_mt.hpp): the resource through the registry on three threads
// at once, frees across threads, and buffers moved between threads with share() and transfer().
// The workers' bodies are the modules in workers/.
import type { DeviceMemoryResource } from '@rmmjs/core';
import { expect } from 'vitest';
import { KiB, MiB, expectBytes, random } from '../basics.js';
import { core } from '../resources.js';
import { packageUrl, runWorker } from '../workers.js';
import { expectError, expectPlaced, randomSequence } from './checks.js';
import { conformanceSeed } from './seed.js';
import { FIRST_BLOCK, GO, PUBLISHED, READY, fillPattern, randomSize } from './common.js';
import type { Suite } from './types.js';

const { DeviceBuffer, RMMError, Stream, getCurrentDeviceResource, setCurrentDeviceResource } = core;

/** Runs workers/<name>.js with `workerData` and the URLs its imports.js needs. */
function runCaseWorker(suite: Suite, name: string, workerData: Record<string, unknown>): Promise<any> {
  const url = new URL(`./workers/${name}.js`, import.meta.url);
  const imports = { core: packageUrl('@rmmjs/core'), package: packageUrl(suite.package) };
  return runWorker(url, { workerData: { ...imports, ...workerData } });
}

/** Resolves once `count` workers have started (or rejects with the first that failed), then lets them go. */
async function startTogether(slots: BigInt64Array, count: number, workers: Promise<unknown>): Promise<void> {
  while (Atomics.load(slots, READY) < BigInt(count))
    await Promise.race([workers, new Promise((resolve) => setTimeout(resolve, 2))]);
  letGo(slots);
}

const letGo = (slots: BigInt64Array) => {
  Atomics.store(slots, GO, 1n);
  Atomics.notify(slots, GO);
};

/** Runs `work` with mr as the current device resource, then puts the previous one back. */
async function asCurrent(mr: DeviceMemoryResource, work: () => Promise<void>): Promise<void> {
  const previous = setCurrentDeviceResource(mr);
  try {
    await work();
  } finally {
    setCurrentDeviceResource(previous);
  }
}

export function threadCases(suite: Suite): void {
  sequencesCase(suite);
  freesAcrossCase(suite);
  transferCases(suite);
}

function sequencesCase(suite: Suite): void {
  const { name, make, settled, test, maxAllocation } = suite;
  test(
    'workers',
    'two worker threads and the main thread use it at once as the current device resource (patterns checked, counts balance)',
    async () => {
      const { mr, gone } = make();
      const maxSize = Math.min(256 * KiB, maxAllocation);
      const slots = new BigInt64Array(new SharedArrayBuffer(8 * 2));
      await asCurrent(mr, async () => {
        const workers = Promise.all(
          ['stream', 'perThread'].map((streamKind, i) =>
            runCaseWorker(suite, 'random-sequence', {
              slots: slots.buffer,
              seed: conformanceSeed + 10 + i,
              steps: 80,
              maxSize,
              streamKind,
            }),
          ),
        );
        try {
          await startTogether(slots, 2, workers);
          randomSequence(getCurrentDeviceResource(), { seed: conformanceSeed + 12, maxSize, steps: 80 });
        } finally {
          letGo(slots);
        }
        for (const seen of await workers) {
          const { frees } = seen;
          expect(seen).toEqual({
            className: name,
            sameResource: true,
            allocations: frees,
            frees,
            misaligned: 0,
            changed: 0,
          });
          expect(seen.allocations).toBeGreaterThan(0);
        }
      });
      settled(mr);
      gone();
    },
  );
}

function freesAcrossCase(suite: Suite): void {
  const { make, settled, test, maxAllocation } = suite;
  test(
    'workers',
    "a worker frees, on its stream, what the main thread allocates on another while both run, and the other way (RMM's AllocFreeDifferentThreads)",
    async () => {
      const { mr, gone } = make();
      const count = 100;
      const size = Math.min(16 * KiB, maxAllocation);
      const slots = new BigInt64Array(new SharedArrayBuffer(8 * (FIRST_BLOCK + 2 * count)));
      const stream = new Stream();
      try {
        await asCurrent(mr, async () => {
          const consumer = runCaseWorker(suite, 'frees-across', { slots: slots.buffer, count, size });
          try {
            await startTogether(slots, 1, consumer);
            const next = random(conformanceSeed + 20);
            for (let i = 0; i < count; i++) {
              const nbytes = randomSize(next, Math.min(MiB, maxAllocation));
              slots[FIRST_BLOCK + 2 * i] = mr.allocate(nbytes, stream);
              slots[FIRST_BLOCK + 2 * i + 1] = BigInt(nbytes);
              stream.synchronize();
              Atomics.store(slots, PUBLISHED, BigInt(i + 1));
              Atomics.notify(slots, PUBLISHED);
            }
          } catch (error) {
            Atomics.store(slots, PUBLISHED, -1n);
            Atomics.notify(slots, PUBLISHED);
            await consumer.catch(() => {}); // it stops on -1
            throw error;
          }
          const theirs: bigint[] = await consumer;
          expectPlaced(theirs, Array(theirs.length).fill(size));
          for (const ptr of theirs) mr.deallocate(ptr, size);
        });
      } finally {
        stream[Symbol.dispose]();
      }
      settled(mr);
      gone();
    },
  );
}

// share() and transfer(): the same native resource on both threads, buffers moved without a copy.
function transferCases(suite: Suite): void {
  const sizes = [1, 1000, 4 * KiB, suite.smallSize, 3 * KiB + 1, 256].filter((size) => size <= suite.maxAllocation);
  transferToMainCase(suite, sizes);
  transferToWorkerCase(suite, sizes);
}

function transferToMainCase(suite: Suite, sizes: number[]): void {
  const { name, make, settled, test, counts } = suite;
  test(
    'transfer',
    'a worker allocates through share()/fromShared, fills and transfers buffers, and exits; the main thread claims them (bytes, size, capacity, stream, resource, counts) and frees them',
    async () => {
      const { mr, gone } = make();
      const seed = conformanceSeed + 30;
      const { className, transfers } = await runCaseWorker(suite, 'transfer-out', { token: mr.share(), sizes, seed });
      expect(className).toBe(name);
      const buffers = transfers.map(
        ({ token, onStream, freed }: { token: any; onStream: boolean; freed: boolean }, i: number) => {
          expect(freed).toBe(true);
          const buffer = DeviceBuffer.fromTransferred(token);
          expect([buffer.size, buffer.mr, buffer.stream.isDefault()]).toEqual([sizes[i], mr, !onStream]);
          expect(buffer.capacity()).toBeGreaterThanOrEqual(sizes[i]);
          expectBytes(buffer.toBytes(), fillPattern(sizes[i], seed + i));
          buffer.stream[Symbol.dispose](); // this thread's Stream over the worker's stream (the buffer keeps it)
          return buffer;
        },
      );
      // The worker's allocations count where the main thread reads the counters.
      const total = sizes.reduce((a, b) => a + b, 0);
      if (counts !== undefined) expect(counts(mr)).toBeGreaterThanOrEqual(total);
      for (const buffer of buffers) buffer.free();
      for (const { token } of transfers) expect(DeviceBuffer.reclaim(token)).toBe(false);
      settled(mr);
      gone();
    },
  );
}

function transferToWorkerCase(suite: Suite, sizes: number[]): void {
  const { make, settled, test } = suite;
  test(
    'transfer',
    'the main thread transfers buffers (default stream and a stream) to a worker, which claims them through the shared resource, checks and frees them',
    async () => {
      const { mr, gone } = make();
      const seed = conformanceSeed + 40;
      const stream = new Stream();
      const onStream = (i: number) => i % 2 === 1;
      const buffers = sizes.map(
        (size, i) =>
          new DeviceBuffer({ data: fillPattern(size, seed + i), mr, stream: onStream(i) ? stream : undefined }),
      );
      const transfers = buffers.map((buffer, i) => ({
        token: buffer.transfer(),
        size: sizes[i],
        onStream: onStream(i),
      }));
      stream[Symbol.dispose]();
      for (const buffer of buffers) {
        expect(buffer.freed).toBe(true);
        expectError(() => buffer.size, RMMError, 'ERR_RMM_DISPOSED');
      }
      const seen = await runCaseWorker(suite, 'transfer-in', { token: mr.share(), transfers, seed });
      const expected = { capacityFits: true, sameResource: true, streamKept: true, intact: true };
      expect(seen).toEqual(sizes.map((size) => ({ size, ...expected })));
      for (const { token } of transfers) expect(DeviceBuffer.reclaim(token)).toBe(false);
      settled(mr);
      gone();
    },
  );
}
