import { counterArg } from './statistics.js';

/** The memory a profiled function or block used over its calls. */
export class MemoryRecord {
  /** How many times it ran. */
  numCalls: number;
  /** Bytes allocated over all calls. */
  memoryTotal: number;
  /** The most bytes live at once during any one call. */
  memoryPeak: number;

  /** `new MemoryRecord(numCalls?, memoryTotal?, memoryPeak?)` or `new MemoryRecord({ numCalls, memoryTotal, memoryPeak })`. */
  constructor(
    numCalls: number | { numCalls?: number; memoryTotal?: number; memoryPeak?: number } = 0,
    memoryTotal = 0,
    memoryPeak = 0,
  ) {
    let names = ['numCalls', 'memoryTotal', 'memoryPeak'];
    if (typeof numCalls === 'object' && numCalls !== null) {
      ({ numCalls = 0, memoryTotal = 0, memoryPeak = 0 } = numCalls);
      names = names.map((name) => `init.${name}`);
    }
    this.numCalls = counterArg(numCalls, names[0]);
    this.memoryTotal = counterArg(memoryTotal, names[1]);
    this.memoryPeak = counterArg(memoryPeak, names[2]);
  }

  /** Counts one more call that allocated `memoryTotal` bytes with a peak of `memoryPeak`. */
  add(memoryTotal: number, memoryPeak: number): void {
    // Everything checked first: a refused call changes nothing.
    const total = counterArg(memoryTotal, 'memoryTotal');
    const peak = counterArg(memoryPeak, 'memoryPeak');
    // The sum stays a safe integer too (else `records` could not copy the record any more).
    counterArg(this.memoryTotal + total, 'memoryTotal');
    this.numCalls += 1;
    this.memoryTotal += total;
    this.memoryPeak = Math.max(this.memoryPeak, peak);
  }
}
