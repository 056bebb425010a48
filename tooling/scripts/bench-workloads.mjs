// The benchmark workloads live in @rmmjs/cli (`rmmjs bench` runs them too); the C++ side of these
// benchmarks takes the same sizes and frees arrays through @rmmjs/test-addon.
export { random, randomWorkload, runRandomWorkload, pairNs, median } from '@rmmjs/cli';
