// Runs before every test file: a fake-driver run must really use the fake driver, so that it can
// never pass as host mode (and a host run must be in host mode).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const backend = process.env.RMMJS_TEST_BACKEND ?? 'host';
const require = createRequire(join(process.cwd(), 'package.json'));
const { cuda } = await import(pathToFileURL(require.resolve('@rmmjs/core')).href);
// Core's full collection (V8's gc without --expose-gc: src/reclaim.ts), from its module beside
// the internal entry point: core exports it nowhere.
const reclaimModule = new URL('./reclaim.js', pathToFileURL(require.resolve('@rmmjs/core/internal')));
const { collectGarbage } = await import(reclaimModule.href);
const available = cuda.isAvailable();
if (backend === 'host' && available) throw new Error('host backend: CUDA is available (RMMJS_DISABLE_CUDA ignored?)');
if (backend !== 'host' && !available) {
  throw new Error(`${backend} backend: CUDA is not available: ${cuda.hostModeReason()}`);
}

// The files of a package share their worker processes (vitest.config.js: isolate false). What the
// files before this one dropped without freeing (their module scope too, let go of once they
// ended) is collected now, and the buffers' and resources' finalizers run, so that none of it is
// freed in the middle of this file's counts (the fake driver's live allocations, an upstream's
// bytes).
collectGarbage();
for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
