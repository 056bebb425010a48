// Runs before every test file: a fake-driver run must really use the fake driver, so that it can
// never pass as host mode (and a host run must be in host mode).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const backend = process.env.RMMJS_TEST_BACKEND ?? 'host';
const require = createRequire(join(process.cwd(), 'package.json'));
const { cuda } = await import(pathToFileURL(require.resolve('@rmmjs/core')).href);
const available = cuda.isAvailable();
if (backend === 'host' && available) throw new Error('host backend: CUDA is available (RMMJS_DISABLE_CUDA ignored?)');
if (backend !== 'host' && !available) {
  throw new Error(`${backend} backend: CUDA is not available: ${cuda.hostModeReason()}`);
}
