// The benchmark workloads live in @rmmjs/cli (`rmmjs bench` runs them too); the C++ side of these
// benchmarks takes the same sizes and frees arrays through @rmmjs/test-addon.
export { random, randomWorkload, runRandomWorkload, pairNs, median } from '@rmmjs/cli';

// The medians of each of `loops` over `rounds` rounds, each round one run of each in turn (after
// one of each to warm up): for figures compared with each other, so that the host's drift (tens of
// percent between runs on some machines) hits them all alike.
export function alternatingMedians(loops, rounds = 7) {
  for (const loop of loops) loop();
  const values = loops.map(() => []);
  for (let i = 0; i < rounds; i++) loops.forEach((loop, j) => values[j].push(loop()));
  return values.map((runs) => runs.sort((x, y) => x - y)[Math.floor(runs.length / 2)]);
}

// The least and the median of `rounds` runs of fn after one warm-up run. The rows compared with
// a peer take the least, as bench_peers.py measures the peers (each at its best); the median goes
// in the row's note.
export function leastAndMedian(fn, rounds = 5) {
  fn();
  const values = Array.from({ length: rounds }, fn).sort((x, y) => x - y);
  return { least: values[0], median: values[Math.floor(rounds / 2)] };
}
