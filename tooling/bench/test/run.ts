// Runs one of the benchmark scripts as its users do, in a process of its own, on this backend (on
// the fake driver with 4 GiB a device: what the benchmarks' pools and workloads take).
import { fileURLToPath } from 'node:url';
import { onFake, spawnWithHangReport } from '@rmmjs/test-helpers';

export const script = (name: string) => fileURLToPath(new URL(`../src/${name}`, import.meta.url));

export function run(name: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const memory = onFake() ? { RMMJS_FAKE_CUDA_MEMORY: String(4 * 2 ** 30) } : {};
  return spawnWithHangReport(process.execPath, [script(name), ...args], {
    env: { ...process.env, ...memory, ...env },
    timeout: 120_000,
  });
}
