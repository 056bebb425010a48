// The smoke suites' vitest configuration (src/smoke.mjs passes it): smoke/*.smoke.ts, one file in
// one process, its checks in order; a check installs packages, so its time limit is minutes.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['smoke/*.smoke.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
