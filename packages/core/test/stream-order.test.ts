// An asynchronous copy is work on its stream like any other: an operation issued after it on that
// stream sees its result, whether it is synchronous (it waits for the copy) or asynchronous too (it
// runs after it), and whenever it comes (before the copy started, between its slices). Each pair of
// operations below is checked against the same two run one after the other, synchronously.
import { setImmediate as eventLoopTurn } from 'node:timers/promises';
import { DEFAULT_STREAM, DeviceBuffer, PER_THREAD_DEFAULT_STREAM, Stream, cuda } from '@rmmjs/core';
import { MiB, expectBytes, fakeCuda, onFake, pattern, rejected } from '@rmmjs/test-helpers';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

// Two slices of an asynchronous copy in host mode (16 MiB each), a staged copy on a GPU.
const size = 20 * MiB + 4096;

/** What a buffer holds, as the operations issued so far leave it (null once freed). */
interface Model {
  bytes: Uint8Array | null;
}

interface Context {
  buffer: DeviceBuffer;
  stream: Stream | undefined;
  model: Model;
  /** Buffers an operation made, freed at the end. */
  extra: DeviceBuffer[];
}

/** Issues the operation now; what it returns awaits it (an asynchronous one) and checks its result. */
type Operation = (context: Context) => () => Promise<void> | void;

// Contents for the copies: a few patterns made once (each 20 MiB takes a while), taken in turn, so
// that no two operations of a test write the same bytes.
const patterns: Uint8Array[] = [];
let next = 0;
function fresh(): Uint8Array {
  const index = next++ % 7;
  patterns[index] ??= pattern(size, index + 1);
  return patterns[index];
}
const nothing = () => {};

const asyncCopies: Record<string, Operation> = {
  copyFromHostAsync: ({ buffer, stream, model }) => {
    const bytes = fresh();
    const copying = buffer.copyFromHostAsync(bytes, stream);
    model.bytes = bytes;
    return async () => {
      await copying;
    };
  },
  copyToHostAsync: ({ buffer, stream, model }) => {
    const expected = model.bytes!.slice();
    const copying = buffer.copyToHostAsync(undefined, stream);
    return async () => expectBytes(await copying, expected);
  },
};

const later: Record<string, Operation> = {
  ...asyncCopies,
  copyFromHost: ({ buffer, stream, model }) => {
    const bytes = fresh();
    buffer.copyFromHost(bytes, stream);
    model.bytes = bytes;
    return nothing;
  },
  // Its result is there when it returns.
  copyToHost: ({ buffer, stream, model }) => {
    expectBytes(buffer.copyToHost(undefined, stream), model.bytes!);
    return nothing;
  },
  'copyFromDevice (into the buffer)': ({ buffer, stream, model, extra }) => {
    const bytes = fresh();
    const source = DeviceBuffer.toDevice(bytes, stream);
    extra.push(source);
    buffer.copyFromDevice(source, stream);
    model.bytes = bytes;
    return nothing;
  },
  'copyFromDevice (from the buffer, into another)': ({ buffer, stream, model, extra }) => {
    const other = new DeviceBuffer({ size, stream });
    extra.push(other);
    other.copyFromDevice(buffer, stream);
    expectBytes(other.toBytes(stream), model.bytes!);
    return nothing;
  },
  'resize (moves the memory)': ({ buffer, stream }) => {
    buffer.resize(size + 8192, stream);
    expect(buffer.size).toBe(size + 8192);
    return nothing;
  },
  'resize (within the capacity)': ({ buffer, stream, model }) => {
    buffer.resize(size - 4096, stream);
    model.bytes = model.bytes!.subarray(0, size - 4096);
    return nothing;
  },
  reserve: ({ buffer, stream }) => {
    buffer.reserve(2 * size, stream);
    expect(buffer.capacity()).toBe(2 * size);
    return nothing;
  },
  'copy()': ({ buffer, stream, model, extra }) => {
    const copy = buffer.copy();
    extra.push(copy);
    expectBytes(copy.toBytes(stream), model.bytes!);
    return nothing;
  },
  'free()': ({ buffer, model }) => {
    buffer.free();
    model.bytes = null;
    return nothing;
  },
  'stream.synchronize()': ({ stream }) => {
    (stream ?? DEFAULT_STREAM).synchronize();
    return nothing;
  },
};

// The buffers are made on the stream under test: copy() copies on the buffer's stream.
const streams: Array<[string, () => Stream | undefined]> = [
  ['no stream (DEFAULT_STREAM)', () => undefined],
  ['a Stream', () => new Stream()],
  ['a non-blocking Stream', () => new Stream({ nonBlocking: true })],
  ['PER_THREAD_DEFAULT_STREAM', () => PER_THREAD_DEFAULT_STREAM],
];

// Turns of the event loop between the two: none (the copy has not started), or some (it waited
// for the stream on a thread of the pool and may have copied a slice).
const gaps = [0, 1, 3];

let liveBefore = 0;
beforeAll(() => {
  DeviceBuffer.toDevice(new Uint8Array(size)).free(); // a GPU makes its pinned staging once
});
afterEach(() => {
  if (onFake()) expect(fakeCuda.stats().liveAllocations).toBe(liveBefore);
});
const track = () => {
  if (onFake()) liveBefore = fakeCuda.stats().liveAllocations;
};

async function runPair(first: Operation, second: Operation, stream: Stream | undefined, gap: number) {
  track();
  const initial = fresh();
  const context: Context = {
    buffer: new DeviceBuffer({ data: initial, stream }),
    stream,
    model: { bytes: initial },
    extra: [],
  };
  try {
    const settleFirst = first(context);
    for (let turn = 0; turn < gap; turn++) await eventLoopTurn();
    const settleSecond = second(context);
    await settleFirst();
    await settleSecond();
    const { bytes } = context.model;
    if (bytes !== null) expectBytes(context.buffer.toBytes(stream).subarray(0, bytes.length), bytes);
    expect(context.buffer.freed).toBe(bytes === null);
  } finally {
    context.buffer[Symbol.dispose]();
    for (const buffer of context.extra) buffer.free();
  }
}

describe.each(streams)('on %s', (_, makeStream) => {
  let stream: Stream | undefined;
  beforeAll(() => {
    stream = makeStream();
  });
  afterAll(() => {
    if (stream !== undefined && !stream.isDefault()) stream[Symbol.dispose]();
  });

  describe.each(Object.keys(asyncCopies))('%s, then', (firstName) => {
    it.each(Object.keys(later).flatMap((secondName) => gaps.map((gap) => [secondName, gap] as const)))(
      '%s, %i turns later, sees its result',
      (secondName, gap) => runPair(asyncCopies[firstName], later[secondName], stream, gap),
    );
  });
});

// CUDA orders the legacy default stream with every blocking stream: so are copies on them.
describe('the legacy default stream and a blocking Stream', () => {
  const pairs = [
    ['copyFromHostAsync on the Stream, then copyToHost on DEFAULT_STREAM', 'copyFromHostAsync', 'copyToHost', true],
    ['copyToHostAsync on the Stream, then copyFromHost on DEFAULT_STREAM', 'copyToHostAsync', 'copyFromHost', true],
    ['copyFromHostAsync on DEFAULT_STREAM, then copyToHost on the Stream', 'copyFromHostAsync', 'copyToHost', false],
    [
      'copyFromHostAsync on DEFAULT_STREAM, then copyToHostAsync on the Stream',
      'copyFromHostAsync',
      'copyToHostAsync',
      false,
    ],
  ] as const;
  it.each(pairs)('%s', async (_, firstName, secondName, firstOnStream) => {
    track();
    const stream = new Stream();
    const initial = fresh();
    const buffer = new DeviceBuffer({ data: initial, stream });
    const model = { bytes: initial };
    const extra: DeviceBuffer[] = [];
    try {
      const settleFirst = asyncCopies[firstName]({ buffer, stream: firstOnStream ? stream : undefined, model, extra });
      const settleSecond = later[secondName]({ buffer, stream: firstOnStream ? undefined : stream, model, extra });
      await settleFirst();
      await settleSecond();
      expectBytes(buffer.toBytes(DEFAULT_STREAM), model.bytes);
    } finally {
      buffer.free();
      stream[Symbol.dispose]();
    }
  });
});

describe('waiting for an asynchronous copy', () => {
  it('stream.synchronize() returns once it is done: its target is filled', async () => {
    const stream = new Stream();
    const buffer = new DeviceBuffer({ data: pattern(size, 40), stream });
    const target = new Uint8Array(size);
    const copying = buffer.copyToHostAsync(target, stream);
    stream.synchronize();
    expectBytes(target, pattern(size, 40));
    expect(await copying).toBe(target);
    buffer.free();
    stream[Symbol.dispose]();
  });

  it('stream.synchronizeAsync() resolves once it is done; so does cuda.synchronize() on a GPU or the fake', async () => {
    const stream = new Stream();
    const buffer = new DeviceBuffer({ data: pattern(size, 41), stream });
    const target = new Uint8Array(size);
    const copying = buffer.copyToHostAsync(target, stream);
    await stream.synchronizeAsync();
    expectBytes(target, pattern(size, 41));
    await copying;
    if (cuda.isAvailable()) {
      const again = new Uint8Array(size);
      const copyingAgain = buffer.copyToHostAsync(again, stream);
      cuda.synchronize();
      expectBytes(again, pattern(size, 41));
      await copyingAgain;
    }
    buffer.free();
    stream[Symbol.dispose]();
  });

  it('a copy finished by a later synchronous operation still reports its own failure; that operation succeeds', async () => {
    track();
    const buffer = new DeviceBuffer({ data: pattern(size, 42) });
    const target = new Uint8Array(size);
    const copying = buffer.copyToHostAsync(target);
    const arrayBuffer = target.buffer;
    structuredClone(arrayBuffer, { transfer: [arrayBuffer] }); // the target goes away before any slice
    buffer.copyFromHost(pattern(size, 43));
    const error = await rejected(copying);
    expect([error.name, error.code]).toEqual(['TypeError', 'ERR_INVALID_ARG_VALUE']);
    expect(error.message).toContain('"target" was detached or shrunk during the copy');
    expectBytes(buffer.toBytes(), pattern(size, 43));
    buffer.free();
  });
});
