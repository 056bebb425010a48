// A seeded random workload of DeviceBuffers: allocate, free, resize, copy (device to device, to and
// from the host, synchronous and asynchronous), each buffer's bytes checked against its pattern
// before it is freed. The same workload runs on the main thread, in workers, under fault injection
// and in the soak (see README.md).
import { DeviceBuffer, OutOfMemoryError, Stream } from '@rmmjs/core';
import { equalBytes, firstDifference, pattern, random } from '@rmmjs/test-helpers/bytes';

/** A buffer whose bytes are not the ones written to it. */
export class CorruptionError extends Error {
  constructor(message) {
    super(message);
    this.name = 'CorruptionError';
  }
}

// Operations and their weights (allocations win while few buffers are live).
const OPERATIONS = [
  ['free', 25],
  ['copy', 10],
  ['copyFromDevice', 10],
  ['resize', 10],
  ['check', 10],
  ['checkAsync', 5],
  ['writeAsync', 5],
  ['synchronizeAsync', 3],
];
const TOTAL_WEIGHT = OPERATIONS.reduce((sum, [, weight]) => sum + weight, 0);

export class Workload {
  #random;
  #mr;
  #maxLive;
  #maxSize;
  #tolerate;
  #async;
  #streams = [];
  #live = []; // { buffer, seed, size }; seed null: bytes unknown (a copy into it failed)
  #nextSeed;

  /** What it did: operations, bytes checked, failures it tolerated. */
  counts = {
    steps: 0,
    allocations: 0,
    frees: 0,
    copies: 0,
    resizes: 0,
    asyncCopies: 0,
    checks: 0,
    checkedBytes: 0,
    outOfMemory: 0,
    tolerated: 0,
  };

  /**
   * `seed`: the random sequence; `mr`: the resource (default: the current device resource);
   * `streams`: how many streams of its own to spread buffers over, besides the default stream;
   * `maxLive` buffers of 1..`maxSize` bytes; `async`: also asynchronous copies; `tolerate(error)`:
   * whether a failure other than OutOfMemoryError is expected (it is counted and the workload goes
   * on; anything else is thrown).
   */
  constructor({ seed, mr, streams = 2, maxLive = 16, maxSize = 64 * 1024, async = true, tolerate = () => false } = {}) {
    this.#random = random(seed);
    this.#nextSeed = (seed * 7919) >>> 0;
    this.#mr = mr;
    this.#maxLive = maxLive;
    this.#maxSize = maxSize;
    this.#async = async;
    this.#tolerate = tolerate;
    for (let i = 0; i < streams; i++) {
      const stream = this.#attempt(() => new Stream());
      if (stream !== undefined) this.#streams.push(stream);
    }
  }

  /** Buffers held now. */
  get live() {
    return this.#live.length;
  }

  /** Bytes the live buffers hold from their resource (the sum of their capacities). */
  get liveBytes() {
    return this.#live.reduce((sum, { buffer }) => sum + buffer.capacity(), 0);
  }

  /** The live buffers' capacities, for counters that round each allocation. */
  liveCapacities() {
    return this.#live.map(({ buffer }) => buffer.capacity());
  }

  /** One random operation (a promise: some operations are asynchronous copies). */
  async step() {
    this.counts.steps++;
    if (this.#live.length === 0 || (this.#live.length < this.#maxLive && this.#random() < 0.4)) {
      this.#allocate();
      return;
    }
    let pick = this.#random() * TOTAL_WEIGHT;
    const [operation] = OPERATIONS.find(([, weight]) => (pick -= weight) < 0) ?? OPERATIONS[0];
    const at = Math.floor(this.#random() * this.#live.length);
    if (!this.#async && operation.endsWith('Async')) return this.#check(at);
    // Copies add buffers: at the most, one goes instead.
    if (operation.startsWith('copy') && this.#live.length >= this.#maxLive) return this.#free(at);
    switch (operation) {
      case 'free':
        return this.#free(at);
      case 'copy':
        return this.#copy(at);
      case 'copyFromDevice':
        return this.#copyFromDevice(at);
      case 'resize':
        return this.#resize(at);
      case 'check':
        return this.#check(at);
      case 'checkAsync':
        return this.#checkAsync(at);
      case 'writeAsync':
        return this.#writeAsync(at);
      case 'synchronizeAsync':
        return this.#synchronizeAsync(at);
    }
  }

  /** `steps` operations, letting the event loop turn every `yieldEvery` of them. */
  async run(steps, yieldEvery = 16) {
    for (let i = 0; i < steps; i++) {
      await this.step();
      if ((i + 1) % yieldEvery === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Checks and frees every buffer and releases its streams. A free that fails with a tolerated
   * error is tried again (once the fault is gone it must work).
   */
  close() {
    const tries = 2 * this.#live.length + 8;
    for (let i = 0; this.#live.length > 0; i++) {
      if (i === tries) throw new Error(`Workload.close: ${this.#live.length} buffers cannot be freed`);
      this.#free(this.#live.length - 1);
    }
    for (const stream of this.#streams.splice(0)) stream[Symbol.dispose]();
  }

  // fn(), or undefined when it fails with OutOfMemoryError or a tolerated error.
  #attempt(fn) {
    try {
      return fn();
    } catch (error) {
      this.#expected(error);
      return undefined;
    }
  }

  async #attemptAsync(fn) {
    try {
      return await fn();
    } catch (error) {
      this.#expected(error);
      return undefined;
    }
  }

  #expected(error) {
    if (error instanceof CorruptionError) throw error;
    if (error instanceof OutOfMemoryError) this.counts.outOfMemory++;
    else if (this.#tolerate(error)) this.counts.tolerated++;
    else throw error;
  }

  #seed() {
    this.#nextSeed = (this.#nextSeed + 0x9e3779b9) >>> 0;
    return this.#nextSeed;
  }

  #size() {
    // Log-uniform in 1..maxSize: mostly small buffers, some large.
    return Math.max(1, Math.floor(Math.exp(this.#random() * Math.log(this.#maxSize))));
  }

  #stream() {
    const at = Math.floor(this.#random() * (this.#streams.length + 1));
    return this.#streams[at]; // undefined: the default stream
  }

  #allocate() {
    const size = this.#size();
    const seed = this.#seed();
    const stream = this.#stream();
    const buffer = this.#attempt(() => new DeviceBuffer({ data: pattern(size, seed), stream, mr: this.#mr }));
    if (buffer === undefined) {
      // Out of memory (or a fault): make room.
      if (this.#live.length > 0) this.#free(Math.floor(this.#random() * this.#live.length));
      return;
    }
    this.counts.allocations++;
    this.#live.push({ buffer, seed, size });
  }

  #remove(at) {
    const last = this.#live.pop();
    if (at < this.#live.length) this.#live[at] = last;
  }

  // The bytes of a buffer: copied to the host, or a device copy of it copied to the host.
  #read(entry) {
    const { buffer } = entry;
    if (this.#random() < 0.5) return buffer.toBytes(buffer.stream);
    const copy = buffer.copy();
    try {
      return copy.toBytes(buffer.stream);
    } finally {
      // A copy that cannot be freed now (a tolerated failure) is freed with the others later.
      if (!this.#attempt(() => (copy.free(), true))) this.#live.push({ buffer: copy, seed: null, size: entry.size });
    }
  }

  #verify(entry, bytes, how) {
    const { buffer, seed, size } = entry;
    this.counts.checks++;
    this.counts.checkedBytes += size;
    if (seed === null) return;
    if (bytes.length !== size || buffer.size !== size) {
      throw new CorruptionError(`${how}: a buffer of ${size} bytes reads back ${bytes.length} (size ${buffer.size})`);
    }
    const expected = pattern(size, seed);
    if (!equalBytes(bytes, expected)) {
      const at = firstDifference(bytes, expected);
      throw new CorruptionError(
        `${how}: byte ${at} of a buffer of ${size} bytes (seed ${seed}) is ${bytes[at]}, not ${expected[at]}`,
      );
    }
  }

  #check(at) {
    const entry = this.#live[at];
    const bytes = this.#attempt(() => this.#read(entry));
    if (bytes !== undefined) this.#verify(entry, bytes, 'check');
  }

  async #checkAsync(at) {
    const entry = this.#live[at];
    const { buffer } = entry;
    this.counts.asyncCopies++;
    const bytes = await this.#attemptAsync(() => buffer.copyToHostAsync(undefined, buffer.stream));
    if (bytes !== undefined) this.#verify(entry, bytes, 'copyToHostAsync');
  }

  // Writes a new pattern with copyFromHostAsync.
  async #writeAsync(at) {
    const entry = this.#live[at];
    const seed = this.#seed();
    this.counts.asyncCopies++;
    entry.seed = null; // until the copy is known to have worked
    const done = await this.#attemptAsync(async () => {
      await entry.buffer.copyFromHostAsync(pattern(entry.size, seed), entry.buffer.stream);
      return true;
    });
    if (done) entry.seed = seed;
  }

  async #synchronizeAsync(at) {
    const stream = this.#live[at].buffer.stream;
    await this.#attemptAsync(() => stream.synchronizeAsync());
  }

  #free(at) {
    const entry = this.#live[at];
    if (entry.seed !== null) {
      const bytes = this.#attempt(() => this.#read(entry));
      if (bytes !== undefined) this.#verify(entry, bytes, 'before free');
    }
    const freed = this.#attempt(() => {
      entry.buffer.free();
      return true;
    });
    if (freed) {
      this.counts.frees++;
      this.#remove(at);
    } else if (entry.buffer.freed) {
      throw new Error('DeviceBuffer.free() failed and yet freed the buffer (it must keep its memory)');
    }
  }

  #copy(at) {
    const entry = this.#live[at];
    const copy = this.#attempt(() => entry.buffer.copy());
    if (copy === undefined) return;
    this.counts.copies++;
    const added = { buffer: copy, seed: entry.seed, size: entry.size };
    this.#live.push(added);
    const bytes = this.#attempt(() => copy.toBytes(copy.stream));
    if (bytes !== undefined) this.#verify(added, bytes, 'copy()');
  }

  #copyFromDevice(at) {
    const entry = this.#live[at];
    const { buffer } = entry;
    const target = this.#attempt(() => new DeviceBuffer({ size: entry.size, stream: buffer.stream, mr: this.#mr }));
    if (target === undefined) return;
    this.counts.copies++;
    const added = { buffer: target, seed: null, size: entry.size };
    this.#live.push(added);
    const copied = this.#attempt(() => {
      target.copyFromDevice(buffer, buffer.stream);
      return true;
    });
    if (copied) added.seed = entry.seed;
  }

  #resize(at) {
    const entry = this.#live[at];
    const { buffer, size } = entry;
    const newSize = this.#size();
    const resized = this.#attempt(() => {
      buffer.resize(newSize, buffer.stream);
      return true;
    });
    if (!resized) {
      if (buffer.size !== size) throw new Error(`a failed resize changed the size from ${size} to ${buffer.size}`);
      return;
    }
    this.counts.resizes++;
    const oldSeed = entry.seed;
    entry.size = newSize;
    entry.seed = null; // until a new pattern is written
    // The kept bytes are the old pattern's first ones.
    const kept = Math.min(size, newSize);
    const bytes = this.#attempt(() => buffer.toBytes(buffer.stream));
    if (bytes !== undefined && oldSeed !== null) {
      const expected = pattern(size, oldSeed).subarray(0, kept);
      if (!equalBytes(bytes.subarray(0, kept), expected)) {
        const offset = firstDifference(bytes.subarray(0, kept), expected);
        throw new CorruptionError(`resize from ${size} to ${newSize} bytes changed byte ${offset}`);
      }
    }
    const seed = this.#seed();
    const written = this.#attempt(() => {
      buffer.copyFromHost(pattern(newSize, seed), buffer.stream);
      return true;
    });
    if (written) entry.seed = seed;
  }
}
