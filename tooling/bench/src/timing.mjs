// How the benchmarks time a figure: the allocate+free pair from JavaScript and the medians of
// runs. The random workload and the worker-thread rate are @rmmjs/cli's (`rmmjs bench` runs them
// too; the C++ side of these benchmarks takes the same sizes and frees arrays through
// @rmmjs/test-addon).

/** ns per allocate+deallocate pair of nbytes from JavaScript. */
export function pairNs(mr, nbytes, iterations) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) mr.deallocate(mr.allocate(nbytes), nbytes);
  return Number(process.hrtime.bigint() - start) / iterations;
}

/** The middle of `values` once sorted (of an even count, the upper one). */
export function middleOf(values) {
  return [...values].sort((x, y) => x - y)[values.length >> 1];
}

/** `rounds` runs of fn after one warm-up run. */
function runsOf(fn, rounds) {
  fn();
  return Array.from({ length: rounds }, fn);
}

/** The median of `rounds` runs of fn after one warm-up run. */
export function median(fn, rounds = 5) {
  return middleOf(runsOf(fn, rounds));
}

// The medians of each of `loops` over `rounds` rounds, each round one run of each in turn (after
// one of each to warm up): for figures compared with each other, so that the host's drift (tens of
// percent between runs on some machines) hits them all alike.
export function alternatingMedians(loops, rounds = 7) {
  for (const loop of loops) loop();
  const values = loops.map(() => []);
  for (let i = 0; i < rounds; i++) loops.forEach((loop, j) => values[j].push(loop()));
  return values.map((runs) => middleOf(runs));
}

// The least and the median of `rounds` runs of fn after one warm-up run. The rows compared with
// a peer take the least, as bench_peers.py measures the peers (each at its best); the median goes
// in the row's note.
export function leastAndMedian(fn, rounds = 5) {
  const values = runsOf(fn, rounds);
  return { least: Math.min(...values), median: middleOf(values) };
}
