// `node tooling/scripts/profile-pairs.mjs --out DIR ...` on a GPU machine, `--analyze DIR` anywhere:
// where a pair's time goes, from tooling/bench (src/profile-pairs.mjs says what it takes).
import '../bench/src/profile-pairs.mjs';
