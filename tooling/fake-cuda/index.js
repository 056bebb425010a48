// The fake CUDA driver's path, and its control surface for tests (see README.md).
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** Absolute path of build/libfakecuda.so: point RMMJS_CUDA_LIBRARY at it. */
export const libraryPath = fileURLToPath(new URL('./build/libfakecuda.so', import.meta.url));

let addon;
function loadAddon() {
  addon ??= createRequire(import.meta.url)('./build/Release/fake_cuda_control.node');
  return addon;
}

function control(command) {
  return loadAddon().control(process.env.RMMJS_CUDA_LIBRARY ?? libraryPath, command);
}

export const fakeCuda = {
  control,
  reset: () => void control('reset'),
  failNext: (symbol, nth, error) => void control(`fail ${symbol} ${nth} ${error}`),
  failAlways: (symbol, error) => void control(`fail-always ${symbol} ${error}`),
  clearFaults: () => void control('clear-faults'),
  setAttribute: (device, attribute, value) => void control(`set-attribute ${device} ${attribute} ${value}`),
  setMemory: (device, bytes) => void control(`set-memory ${device} ${bytes}`),
  stats: () => JSON.parse(control('stats')),
};
