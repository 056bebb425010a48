// `node tooling/scripts/smoke-pack.mjs [--keep] [--gpu-bundle FILE] [--on-gpu FILE]`: the smoke
// test of tooling/smoke (`pnpm smoke`; src/smoke.mjs says what it takes).
import '../smoke/src/smoke.mjs';
