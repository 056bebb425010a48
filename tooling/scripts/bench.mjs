// `pnpm bench`, or `node tooling/scripts/bench.mjs [--quick] [--runs N] [--json FILE] ...` on a GPU
// machine without pnpm: the benchmark table of tooling/bench (src/bench.mjs says what it takes).
import '../bench/src/bench.mjs';
