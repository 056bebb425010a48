// The benchmark workloads live in @rmmjs/cli (`rmmjs bench` runs them too); the C++ side of these
// benchmarks takes the same sizes and frees arrays through @rmmjs/test-addon.
export { random, randomWorkload, runRandomWorkload, pairNs, median } from '@rmmjs/cli';

// The medians of `a` and `b` over `rounds` rounds, each round one of each (after one of each to
// warm up): for a figure compared with another, so that the host's drift (tens of percent between
// runs on some machines) hits both alike.
export function alternatingMedians(a, b, rounds = 7) {
  a();
  b();
  const as = [];
  const bs = [];
  for (let i = 0; i < rounds; i++) {
    as.push(a());
    bs.push(b());
  }
  const middle = (values) => values.sort((x, y) => x - y)[Math.floor(values.length / 2)];
  return [middle(as), middle(bs)];
}

// The least and the median of `rounds` runs of fn after one warm-up run. The rows compared with
// a peer take the least, as bench_peers.py measures the peers (each at its best); the median goes
// in the row's note.
export function leastAndMedian(fn, rounds = 5) {
  fn();
  const values = Array.from({ length: rounds }, fn).sort((x, y) => x - y);
  return { least: values[0], median: values[Math.floor(rounds / 2)] };
}
