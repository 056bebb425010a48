// Resources shared between worker threads (share / fromShared) and DeviceBuffers moved between them
// without a copy (transfer / fromTransferred / reclaim). What every resource must do across threads
// is the conformance suite's 'transfer' case; these are core's own: tokens, lifetimes, the race of
// a last release with fromShared, worker termination and the process's exit.
import { once } from 'node:events';
import { setImmediate as eventLoopTurn } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import {
  DEFAULT_STREAM,
  DeviceBuffer,
  DeviceMemoryResource,
  PER_THREAD_DEFAULT_STREAM,
  RMMError,
  Stream,
  getCurrentDeviceResource,
  setCurrentDeviceResource,
  type TransferredBufferToken,
} from '@rmmjs/core';
import { native } from '@rmmjs/core/internal';
import { expectBytes, fakeCuda, onFake, pattern, random, runInProcess, runWorker, thrown } from '@rmmjs/test-helpers';
import { afterEach, describe, expect, it } from 'vitest';
import { CountingResourceAdaptor } from './counting-adaptor.js';
import { availableCases } from './resource-table.js';

const made: Disposable[] = [];
const keep = <T extends Disposable>(item: T): T => {
  made.push(item);
  return item;
};
afterEach(() => {
  for (const item of made.splice(0).reverse()) item[Symbol.dispose]();
});

const makeBase = () => availableCases()[0].make();
const counted = () => keep(new CountingResourceAdaptor(getCurrentDeviceResource()));

function expectCoded(fn: () => unknown, Class: abstract new (...args: never[]) => Error, code: string, text?: string) {
  const error = thrown(fn);
  expect(error).toBeInstanceOf(Class);
  expect(error.code).toBe(code);
  if (text !== undefined) expect(error.message).toBe(text);
  return error;
}

const workerModule = (name: string) => new URL(`./workers/${name}.js`, import.meta.url);
const child = (name: string) => new URL(`./children/${name}.js`, import.meta.url);

const FORGED = 'forged or altered';

describe('DeviceMemoryResource#share() and DeviceMemoryResource.fromShared()', () => {
  it('a token is a plain object that survives structuredClone and JSON; on its own thread it is the resource itself', () => {
    const mr = keep(makeBase());
    const token = mr.share();
    expect(Object.keys(token).sort()).toEqual(['className', 'id', 'kind', 'mac', 'pid', 'process']);
    expect(token).toMatchObject({ kind: 'rmmjs:resource', className: mr.constructor.name, pid: process.pid });
    expect(mr.share()).toEqual(token);
    expect(keep(makeBase()).share().id).not.toBe(token.id);
    expect(DeviceMemoryResource.fromShared(structuredClone(token))).toBe(mr);
    expect(DeviceMemoryResource.fromShared(JSON.parse(JSON.stringify(token)))).toBe(mr);
  });

  it('a worker gets the same native resource: its class where its package is imported, else a DeviceMemoryResource; counters count across threads', async () => {
    const base = keep(makeBase());
    const mr = keep(new CountingResourceAdaptor(base));
    const [seen, ptr] = await runWorker(workerModule('shared-resources'), {
      workerData: { base: base.share(), mr: mr.share() },
    });
    // @rmmjs/core is imported there, the counting adaptor's addon is not.
    expect(seen).toEqual([base.constructor.name, 'DeviceMemoryResource', true, true, false]);
    expect(mr.counts()).toEqual({ allocations: 1, deallocations: 0, bytesOutstanding: 3000 });
    mr.deallocate(ptr, 3000); // what the worker allocated, freed here
    expect(mr.counts()).toEqual({ allocations: 1, deallocations: 1, bytesOutstanding: 0 });
  });

  it('a token is good while anything holds the resource (a buffer, the registry), then ERR_RMM_DISPOSED', () => {
    const mr = makeBase();
    const token = mr.share();
    const buffer = new DeviceBuffer({ size: 100, mr });
    mr[Symbol.dispose]();
    const again = DeviceMemoryResource.fromShared(token); // the buffer holds it
    expect(again).not.toBe(mr);
    expect(again.constructor).toBe(mr.constructor);
    const previous = setCurrentDeviceResource(again);
    again[Symbol.dispose]();
    buffer.free();
    const current = DeviceMemoryResource.fromShared(token); // the registry holds it
    expect(current).toBe(getCurrentDeviceResource());
    setCurrentDeviceResource(previous);
    current[Symbol.dispose](); // the last reference
    expectCoded(
      () => DeviceMemoryResource.fromShared(token),
      RMMError,
      'ERR_RMM_DISPOSED',
      'The resource shared under this token no longer exists: every thread released it (keep a reference until the receiving thread has called fromShared)',
    );
  });

  it('refuses what is not a resource token (ERR_INVALID_ARG_TYPE) and tokens this process did not make (ERR_RMM_INVALID_TOKEN)', () => {
    const mr = keep(makeBase());
    const token = mr.share();
    const other = keep(makeBase()).share();
    const trap = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
      },
    );
    for (const bad of [
      undefined,
      null,
      5,
      'token',
      {},
      trap,
      { ...token, kind: 'rmmjs:stream' },
      { ...token, id: 5 },
      { ...token, id: '01' },
      { ...token, id: '1'.repeat(21) },
      { ...token, pid: String(token.pid) },
      { ...token, process: undefined },
      { ...token, mac: undefined },
    ]) {
      const error = expectCoded(() => DeviceMemoryResource.fromShared(bad as never), TypeError, 'ERR_INVALID_ARG_TYPE');
      expect(error.message).toContain('The "token" argument must be a token from DeviceMemoryResource#share()');
    }
    const bufferToken = new DeviceBuffer({ size: 8 }).transfer();
    expectCoded(
      () => DeviceMemoryResource.fromShared(bufferToken as never),
      TypeError,
      'ERR_INVALID_ARG_TYPE',
      'The "token" argument must be a token from DeviceMemoryResource#share(). Received a token from DeviceBuffer#transfer()',
    );
    expect(DeviceBuffer.reclaim(bufferToken)).toBe(true);
    const forged = `This resource token was not made by DeviceMemoryResource#share() in this process: it is ${FORGED}`;
    for (const bad of [
      { ...token, id: other.id },
      { ...token, mac: other.mac },
      { ...token, mac: token.mac.slice(1) },
      { ...bufferToken, kind: 'rmmjs:resource' as const, className: 'SystemMemoryResource' }, // relabelled
    ]) {
      expectCoded(() => DeviceMemoryResource.fromShared(bad), RMMError, 'ERR_RMM_INVALID_TOKEN', forged);
    }
    expect(DeviceMemoryResource.fromShared({ ...token, className: 'Anything' })).toBe(mr); // informative only
  });

  it("another process's tokens are ERR_RMM_INVALID_TOKEN", () => {
    const run = runInProcess(child('prints-tokens'));
    const [resourceToken, bufferToken] = JSON.parse(run.stdout);
    const elsewhere = new RegExp(
      `^This (resource|DeviceBuffer) token was made in another process \\(process [0-9a-f]{16}, pid ${bufferToken.pid}; ` +
        `this is process [0-9a-f]{16}, pid ${process.pid}\\): resources and buffers move only between the threads of one process$`,
    );
    for (const fn of [
      () => DeviceMemoryResource.fromShared(resourceToken),
      () => DeviceBuffer.fromTransferred(bufferToken),
      () => DeviceBuffer.reclaim(bufferToken),
    ]) {
      expect(expectCoded(fn, RMMError, 'ERR_RMM_INVALID_TOKEN').message).toMatch(elsewhere);
    }
  });

  it('the last release on one thread races fromShared on another: each call gets the resource or ERR_RMM_DISPOSED', async () => {
    const rounds = 300;
    const live = onFake() ? fakeCuda.stats().liveAllocations : 0;
    const resources = Array.from({ length: rounds }, makeBase);
    const tokens = resources.map((mr) => mr.share());
    const ROUND = 0; // released by the main thread
    const DONE = 1; // finished by the worker
    const READY = 2;
    const slots = new Int32Array(new SharedArrayBuffer(12));
    const outcomes = runWorker(workerModule('release-race'), {
      workerData: { slots: slots.buffer, at: { round: ROUND, done: DONE, ready: READY }, tokens },
    });
    while (Atomics.load(slots, READY) === 0) await Promise.race([outcomes, new Promise((r) => setTimeout(r, 2))]);
    const next = random(1);
    for (let round = 1; round <= rounds; round++) {
      Atomics.store(slots, ROUND, round);
      Atomics.notify(slots, ROUND);
      // A few microseconds either way, so that the release lands before, during and after fromShared.
      for (const until = performance.now() + next() * 0.05; performance.now() < until;);
      resources[round - 1][Symbol.dispose]();
      while (Atomics.load(slots, DONE) < round) {
        if (Atomics.wait(slots, DONE, round - 1, 10000) === 'timed-out') break;
      }
    }
    const seen = await outcomes;
    expect(seen.other).toEqual([]);
    expect(seen.taken + seen.gone).toBe(rounds);
    for (const token of tokens) expectCoded(() => DeviceMemoryResource.fromShared(token), RMMError, 'ERR_RMM_DISPOSED');
    if (onFake()) expect(fakeCuda.stats().liveAllocations).toBe(live);
  });
});

describe('DeviceBuffer#transfer(), DeviceBuffer.fromTransferred() and DeviceBuffer.reclaim()', () => {
  it('on one thread: the claimed buffer has the memory, size, capacity, stream and resource; the original reads as freed', () => {
    const mr = counted();
    const stream = keep(new Stream());
    const buffer = new DeviceBuffer({ data: pattern(1000, 1), mr, stream });
    buffer.reserve(5000, stream);
    const { ptr } = buffer;
    const token = buffer.transfer();
    expect(Object.keys(token).sort()).toEqual(['id', 'kind', 'mac', 'pid', 'process', 'size']);
    expect(token).toMatchObject({ kind: 'rmmjs:buffer', size: 1000, pid: process.pid });
    expect([buffer.freed, String(buffer)]).toEqual([true, 'DeviceBuffer(freed)']);
    for (const use of [
      () => buffer.size,
      () => buffer.ptr,
      () => buffer.toBytes(),
      () => buffer.free(),
      () => buffer.transfer(),
    ]) {
      expectCoded(use, RMMError, 'ERR_RMM_DISPOSED', 'DeviceBuffer was freed and cannot be used');
    }
    buffer[Symbol.dispose](); // a no-op, as after free()
    expect(mr.counts().bytesOutstanding).toBe(5000);
    const claimed = DeviceBuffer.fromTransferred(structuredClone(token));
    expect([claimed.ptr, claimed.size, claimed.capacity(), claimed.freed]).toEqual([ptr, 1000, 5000, false]);
    expect(claimed.mr).toBe(mr);
    expect(claimed.stream).not.toBe(stream); // this thread's object over the same stream
    expect(claimed.stream.equals(stream)).toBe(true);
    expectBytes(claimed.toBytes(), pattern(1000, 1));
    claimed.stream[Symbol.dispose]();
    claimed.free();
    expect(mr.counts()).toEqual({ allocations: 2, deallocations: 2, bytesOutstanding: 0 });
  });

  it('keeps the default streams as the shared constants, and moves empty buffers', () => {
    const empty = DeviceBuffer.fromTransferred(new DeviceBuffer().transfer());
    expect([empty.size, empty.ptr, empty.stream]).toEqual([0, 0n, DEFAULT_STREAM]);
    empty.free();
    const buffer = DeviceBuffer.fromTransferred(new DeviceBuffer({ data: pattern(10, 2) }).transfer());
    expect(buffer.stream).toBe(DEFAULT_STREAM);
    expect(buffer.copy().stream).toBe(DEFAULT_STREAM);
    buffer.free();
  });

  it("waits for the per-thread default stream (each thread has its own); the claimed buffer is on the claimer's", () => {
    const buffer = new DeviceBuffer({ data: pattern(64, 3), stream: PER_THREAD_DEFAULT_STREAM });
    const synchronized = () => (onFake() ? (fakeCuda.stats().calls.cuStreamSynchronize ?? 0) : 0);
    const before = synchronized();
    const token = buffer.transfer();
    if (onFake()) expect(synchronized() - before).toBe(1);
    const claimed = DeviceBuffer.fromTransferred(token);
    expect(claimed.stream).toBe(PER_THREAD_DEFAULT_STREAM);
    expectBytes(claimed.toBytes(), pattern(64, 3));
    claimed.free();
  });

  it('a claimed stream goes with the buffer when nobody asked for it', async () => {
    const streams = () => (onFake() ? fakeCuda.stats().liveStreams : 0);
    const before = streams();
    const token = await runWorker(workerModule('transfers-on-own-stream'));
    const buffer = DeviceBuffer.fromTransferred(token);
    if (onFake()) expect(streams()).toBe(before + 1); // the buffer holds it
    buffer.free();
    expect(streams()).toBe(before);
  });

  it('is claimed once: again is ERR_RMM_ALREADY_CLAIMED and reclaim() false; an unclaimed transfer is reclaimed once', () => {
    const mr = counted();
    const a = new DeviceBuffer({ size: 1000, mr }).transfer();
    const b = new DeviceBuffer({ size: 3000, mr }).transfer();
    const claimed = DeviceBuffer.fromTransferred(a);
    const twice = 'This DeviceBuffer token was claimed already (or reclaimed): a transferred buffer is claimed once';
    expectCoded(() => DeviceBuffer.fromTransferred(a), RMMError, 'ERR_RMM_ALREADY_CLAIMED', twice);
    expect(DeviceBuffer.reclaim(a)).toBe(false);
    expect(mr.counts().bytesOutstanding).toBe(4000);
    expect(DeviceBuffer.reclaim(b)).toBe(true);
    expect(mr.counts().bytesOutstanding).toBe(1000);
    expect(DeviceBuffer.reclaim(b)).toBe(false);
    expectCoded(() => DeviceBuffer.fromTransferred(b), RMMError, 'ERR_RMM_ALREADY_CLAIMED', twice);
    claimed.free();
    expect(mr.counts()).toEqual({ allocations: 2, deallocations: 2, bytesOutstanding: 0 });
  });

  it('refuses what is not a buffer token (ERR_INVALID_ARG_TYPE) and tokens this process did not make (ERR_RMM_INVALID_TOKEN)', () => {
    const token = new DeviceBuffer({ size: 8 }).transfer();
    const other = new DeviceBuffer({ size: 8 }).transfer();
    const resourceToken = keep(makeBase()).share();
    for (const op of [DeviceBuffer.fromTransferred, DeviceBuffer.reclaim]) {
      for (const bad of [undefined, null, 1n, {}, [], { ...token, kind: undefined }, { ...token, id: '0' }]) {
        const error = expectCoded(() => op(bad as never), TypeError, 'ERR_INVALID_ARG_TYPE');
        expect(error.message).toContain('The "token" argument must be a token from DeviceBuffer#transfer()');
      }
      expectCoded(
        () => op(resourceToken as never),
        TypeError,
        'ERR_INVALID_ARG_TYPE',
        'The "token" argument must be a token from DeviceBuffer#transfer(). Received a token from DeviceMemoryResource#share()',
      );
      for (const bad of [
        { ...token, id: other.id },
        { ...token, mac: other.mac },
      ]) {
        expectCoded(
          () => op(bad as TransferredBufferToken),
          RMMError,
          'ERR_RMM_INVALID_TOKEN',
          `This DeviceBuffer token was not made by DeviceBuffer#transfer() in this process: it is ${FORGED}`,
        );
      }
    }
    expect(DeviceBuffer.fromTransferred({ ...token, size: 12345 }).size).toBe(8); // informative only
    expect(DeviceBuffer.reclaim(other)).toBe(true);
  });

  it('refuses while an asynchronous copy runs (ERR_RMM_LOGIC); the buffer stays usable and transfers afterwards', async () => {
    const buffer = new DeviceBuffer({ data: pattern(4096, 4) });
    const copy = buffer.copyToHostAsync();
    expectCoded(
      () => buffer.transfer(),
      RMMError,
      'ERR_RMM_LOGIC',
      'DeviceBuffer has 1 asynchronous copies in flight: await them before transfer()',
    );
    expectBytes(await copy, pattern(4096, 4));
    const claimed = DeviceBuffer.fromTransferred(buffer.transfer());
    expectBytes(claimed.toBytes(), pattern(4096, 4));
    claimed.free();
  });
});

describe('worker termination in the middle of a transfer', () => {
  it('a worker terminated before it claims: reclaim() gives the memory back; one that claimed frees it as it goes', async () => {
    const mr = counted();
    const tokens = [new DeviceBuffer({ size: 1000, mr }).transfer(), new DeviceBuffer({ size: 2000, mr }).transfer()];
    const worker = new Worker(workerModule('claims-and-stays'), { workerData: tokens });
    await once(worker, 'message');
    await worker.terminate();
    expect(mr.counts().bytesOutstanding).toBe(1000);
    expect(DeviceBuffer.reclaim(tokens[1])).toBe(false);
    expect(DeviceBuffer.reclaim(tokens[0])).toBe(true);
    expect(mr.counts()).toEqual({ allocations: 2, deallocations: 2, bytesOutstanding: 0 });
  });

  it('a worker terminated at any moment of a ping-pong of transfers: no crash, and every byte comes back', async () => {
    const next = random(7);
    for (let trial = 0; trial < 6; trial++) {
      const mr = counted();
      const worker = new Worker(workerModule('ping-pong'));
      await once(worker, 'message');
      const sent = new Set<TransferredBufferToken>();
      const send = (buffer: DeviceBuffer) => {
        const token = buffer.transfer();
        sent.add(token);
        worker.postMessage(token);
      };
      worker.on('message', (token: TransferredBufferToken) => {
        send(DeviceBuffer.fromTransferred(token));
      });
      for (let i = 0; i < 4; i++) send(new DeviceBuffer({ data: new Uint8Array(64 * 1024).fill(i), mr }));
      await new Promise((resolve) => setTimeout(resolve, 5 + next() * 40));
      await worker.terminate();
      for (let i = 0; i < 3; i++) await eventLoopTurn();
      // Sent but not claimed: reclaim. Claimed there: gone with the worker, or sent back in a message
      // that the termination dropped, which only the process's exit frees.
      for (const token of sent) DeviceBuffer.reclaim(token);
      if (mr.counts().bytesOutstanding !== 0) native.freeUnclaimedTransfers();
      expect(mr.counts().bytesOutstanding).toBe(0);
    }
  });

  // terminate() makes the worker's Node-API refuse to create handles at once, while its JavaScript
  // runs on until V8 stops it: a stream made in that moment must not outlive the worker.
  it.runIf(onFake())(
    'a worker terminated while it makes streams and waits leaves no stream or event behind',
    async () => {
      const live = () => [fakeCuda.stats().liveStreams, fakeCuda.stats().liveEvents];
      const before = live();
      for (let trial = 0; trial < 40; trial++) {
        const worker = new Worker(workerModule('makes-streams'));
        await once(worker, 'message');
        await new Promise((resolve) => setTimeout(resolve, 1 + (trial % 8)));
        await worker.terminate();
      }
      expect(live()).toEqual(before);
    },
  );

  it('transfers nobody claimed are freed when the process exits, with a warning in the debug log', () => {
    for (const ending of ['end', 'exit']) {
      const run = runInProcess(child('leaves-transfers'), { args: [ending], debugLog: true });
      expect(run.status).toBe(ending === 'exit' ? 3 : 0);
      expect(run.stdout).toBe('0');
      expect(run.log).toMatch(
        /\[warning\] DeviceBuffer: 2 transferred buffer\(s\) of 4000 bytes in all were never claimed \(DeviceBuffer\.fromTransferred\) nor reclaimed \(DeviceBuffer\.reclaim\); freeing them at exit\n$/,
      );
    }
  });
});
