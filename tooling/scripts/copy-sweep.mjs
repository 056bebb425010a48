// `node tooling/scripts/copy-sweep.mjs [--quick] [--json FILE] [--chunks 4,8,16] ...` or `--dma` on
// a GPU machine: the staged copies' sweep of tooling/bench (src/copy-sweep.mjs says what it takes).
import '../bench/src/copy-sweep.mjs';
